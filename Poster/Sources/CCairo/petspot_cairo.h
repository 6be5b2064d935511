/* cairo draws the poster's page: a PDF surface for print, an image surface for --png. */
#ifndef PETSPOT_CAIRO_H
#define PETSPOT_CAIRO_H

#include <cairo.h>
#include <cairo-pdf.h>

#endif
