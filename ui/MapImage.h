// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "MapOverlay.h"
#include "domain/GridField.h"

#include <QColor>
#include <QImage>
#include <QString>

namespace isobar::ui {

// The colour scale of a map: values from low to high on a perceptually even ramp (dark blue,
// teal, green, yellow: viridis' stops), missing values in a grey no value has.
struct ColourScale {
    float low = 0.0F;
    float high = 1.0F;

    static QColor missingColour() { return {0xb0, 0xb0, 0xb0}; }
    // The colour at t in [0, 1] (clamped).
    static QColor ramp(double t);
    QColor colour(float value) const;
    // The scale of a field: its smallest to largest value (a constant field gets a unit span).
    static ColourScale of(const GridField& field);
};

// The field as an image of at most `maxWidth` x `maxHeight` pixels, one per grid point when it
// fits: otherwise each pixel shows the grid point nearest its centre (display only; values are
// never averaged, and what a pixel stands for is pixelToPoint()).
QImage fieldImage(const GridField& field, const ColourScale& scale, int maxWidth, int maxHeight);

// The field drawn at exactly `size`: fieldImage() scaled without smoothing (each grid point a flat
// cell), with the map's layers over it (MapOverlay.h: coastlines, lakes, borders, the graticule).
// `missing`, when given, gets what could not be drawn (the coastlines' package), else is cleared.
QImage mapImage(const GridField& field, const ColourScale& scale, QSize size, const MapLayers& layers = {},
                QString* missing = nullptr);

// The grid point (row, column) under pixel (x, y) of an image `width` x `height` of the field.
std::pair<std::size_t, std::size_t> pixelToPoint(const GridField& field, int width, int height, double x,
                                                 double y);

// "temperature_2m (t2m) at 2024-01-01 06:00 UTC, 500 hPa": what a map shows.
QString fieldTitle(const GridField& field);

// "lat 45.25, lon 10.50 (location_id 12345): 12.3 degC" or "...: missing".
QString pointText(const GridField& field, std::size_t row, std::size_t col);

// A picture for a file (isobar-cli inspect --map): title, the map, a colour bar with the scale's
// ends and units, and how many values are missing. Needs a QGuiApplication (fonts).
QImage mapPicture(const GridField& field, int width);

} // namespace isobar::ui
