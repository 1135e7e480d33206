// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Leaks of the libraries underneath that Isobar cannot avoid, for LeakSanitizer (included by one
// source of each fuzzer that reaches them). Matched by the module that allocated them: with fast
// unwinding a leak's stack has one frame past malloc. Both are leaks on the libraries' own error
// paths, where the call fails and hands back nothing Isobar could close or free:
// - netcdf-c 4.9.0 with HDF5 1.10.8 (Debian 12): nc_open of a damaged netCDF-4 file that fails
//   half-way (NC4_open -> H5Gopen2) leaks what it had built.
// - ecCodes 2.28.0: codes_handle_new_from_file on a damaged message (grib_handle_new_from_message
//   -> grib_accessor_factory) leaks the accessors it had made.
// The price: a handle Isobar failed to close would not be reported by the fuzzers either; Isobar
// closes them by RAII (NetcdfHandle, NetcdfOpenFiles, Grib.cpp's Handle), and the asan preset's
// tests check those paths.
// The name is LeakSanitizer's hook, looked up in the program; one source per fuzzer defines it, and
// inline would let the compiler leave it out.
// NOLINTNEXTLINE(bugprone-reserved-identifier,misc-definitions-in-headers)
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libnetcdf.so\nleak:libhdf5_serial.so\nleak:libeccodes.so\n";
}
