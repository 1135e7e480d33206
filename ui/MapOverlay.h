// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/GridField.h"
#include "geo/Shorelines.h"

#include <QImage>
#include <QPointF>
#include <QSize>
#include <QString>

#include <vector>

namespace isobar::ui {

// Where a longitude and latitude fall on a picture of a field `size` pixels large, each grid point a
// cell of the picture (as fieldImage draws it: the point's value fills its cell, the cell's centre
// is the point). Longitudes are unwrapped along the field's columns, so a box across the date line
// (170 ... 179.75, -180 ... -170) runs 170 ... 190 here; latitudes may run either way and need not
// be evenly spaced (Gaussian grids).
class MapFrame {
public:
    MapFrame(const GridField& field, QSize size);

    // The pixel of (lon, lat), lon in the frame's longitudes (box()); outside the picture too.
    QPointF toPixel(double lon, double lat) const;
    double xOfLongitude(double lon) const;
    double yOfLatitude(double lat) const;
    // The part of the globe the picture shows, to its cells' edges, in the frame's longitudes.
    geo::Box box() const { return box_; }
    QSize size() const { return size_; }
    // Degrees of longitude a pixel spans (the finer of the two axes).
    double degreesPerPixel() const;

private:
    std::vector<double> lons_; // unwrapped
    std::vector<double> lats_;
    QSize size_;
    geo::Box box_;
};

// A line of the graticule: a meridian (x fixed) or a parallel (y fixed), at `degrees`, with its
// label ("30°N", "0°", "150°W", "180°", "35.25°N"): longitudes are named in -180..180 whatever the
// file's convention.
struct GraticuleLine {
    bool meridian = false;
    double degrees = 0.0;
    double pixel = 0.0; // x of a meridian, y of a parallel
    QString label;
};

// The graticule's step: the smallest of 60, 30, 10, 5, 2, 1, 0.5, 0.25, 0.1 degrees that
// leaves at least `minSpacing` pixels between lines on both axes.
double graticuleStep(const MapFrame& frame, double minSpacing = 60.0);
// The meridians and parallels inside the picture at that step.
std::vector<GraticuleLine> graticule(const MapFrame& frame);
QString latitudeLabel(double degrees, double step);
QString longitudeLabel(double degrees, double step);

struct MapLayers {
    bool shorelines = true; // coastlines, lakes, borders (GSHHG)
    bool graticule = true;  // meridians and parallels, labelled on the map's edges
};

// Draws the layers over `image` (a picture of the field, `image.size()` pixels): shorelines first,
// in a dark line on a light halo that reads on every colour of the ramp and on the missing grey,
// then the graticule and its labels. Returns what could not be drawn ("coastlines need the Debian
// package gmt-gshhg-low ..."), empty when all was; the first time in a process it also logs it.
QString drawMapLayers(QImage& image, const GridField& field, const MapLayers& layers = {});

} // namespace isobar::ui
