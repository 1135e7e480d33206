# SPDX-License-Identifier: GPL-3.0-or-later
# Build-time check of one core layer's includes (run by isobar_layer() in CMakeLists.txt):
# every #include "folder/Name.h" of the layer's files must name its own folder or one it may
# include. Anything else fails the build, naming the file, the include and the rule.
#   -DLAYER=era5 -DALLOWED=era5,domain,util -DFILES=a.cpp,b.h -DSTAMP=out
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" allowed "${ALLOWED}")
string(REPLACE "," ";" files "${FILES}")
set(problems "")
foreach(file IN LISTS files)
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[A-Za-z0-9_]+/")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "\"([A-Za-z0-9_]+)/[^\"]*\"" include "${line}")
    set(folder "${CMAKE_MATCH_1}")
    if(NOT folder IN_LIST allowed)
      string(APPEND problems "\n  ${file}: ${include}: core/${LAYER} may include only ${ALLOWED}")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "include against the layering of core/:${problems}")
endif()
file(TOUCH "${STAMP}")
