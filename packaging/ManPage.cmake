# SPDX-License-Identifier: GPL-3.0-or-later
# Writes a gzipped man page for PROGRAM from its own --help and --version (help2man), so the page
# never says other than the program does. For each of COMMANDS (a |-list) the text of
# `PROGRAM COMMAND --help` goes into a COMMANDS section, verbatim; SECTIONS (a help2man include
# file) adds what --help does not say: files, environment, see also.
#
#   cmake -DHELP2MAN=... -DGZIP=... -DPROGRAM=... -DNAME=... [-DCOMMANDS=a|b] [-DSECTIONS=FILE]
#         -DOUTPUT=page.1.gz -P ManPage.cmake
foreach(var HELP2MAN GZIP PROGRAM NAME OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ManPage.cmake: ${var} is not set")
  endif()
endforeach()

# Text as roff shows it: backslashes doubled, and no line may begin with a control character.
function(roff_verbatim text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

string(REPLACE "|" ";" COMMANDS "${COMMANDS}")
set(include "${OUTPUT}.h2m")
set(body "")
if(DEFINED SECTIONS)
  file(READ "${SECTIONS}" body)
endif()
if(COMMANDS)
  string(APPEND body "[COMMANDS]\n")
  foreach(command IN LISTS COMMANDS)
    execute_process(COMMAND "${PROGRAM}" ${command} --help
                    OUTPUT_VARIABLE help RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${PROGRAM} ${command} --help failed (${rc}): ${err}")
    endif()
    roff_verbatim("${help}" help)
    string(APPEND body ".SS ${command}\n.nf\n${help}.fi\n")
  endforeach()
endif()
file(WRITE "${include}" "${body}")

string(REGEX REPLACE "\\.gz$" "" page "${OUTPUT}")
execute_process(COMMAND "${HELP2MAN}" --no-info --no-discard-stderr --name "${NAME}"
                        --include "${include}" --output "${page}" "${PROGRAM}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man ${PROGRAM} failed (${rc}): ${err}")
endif()
# -n: no name or time stamp in the archive, so the same page gives the same bytes.
execute_process(COMMAND "${GZIP}" -9 -n -f "${page}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${page} failed (${rc})")
endif()
