/* gdk-pixbuf decodes the photo with the loaders Debian installs: JPEG and PNG built in, WebP
 * (webp-pixbuf-loader) and HEIC (heif-gdk-pixbuf) as modules. */
#ifndef PETSPOT_GDK_PIXBUF_H
#define PETSPOT_GDK_PIXBUF_H

#include <gdk-pixbuf/gdk-pixbuf.h>

#endif
