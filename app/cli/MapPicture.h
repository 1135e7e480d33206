// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/GridField.h"

#include <filesystem>

namespace isobar::cli {

// Writes the picture of `field` (title, map, colour bar with units, missing values in grey) to
// `path` as PNG, `width` pixels wide: what `inspect --map` writes. Drawn by Qt's image code on its
// offscreen platform, so it needs no display. Throws isobar::Error when the file cannot be
// written, or when this isobar-cli was built without Qt Gui (ISOBAR_BUILD_GUI=OFF).
void writeMapPicture(const GridField& field, const std::filesystem::path& path, int width);

} // namespace isobar::cli
