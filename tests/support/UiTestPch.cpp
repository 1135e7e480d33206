// SPDX-License-Identifier: GPL-3.0-or-later

// The one source of isobar_uitest_pch, the target whose precompiled header (QtTest, QtCore and
// QtWidgets, compiled with Qt GUI) the desktop's tests share: CMake compiles a precompiled header
// only for a target with a source of its own.
