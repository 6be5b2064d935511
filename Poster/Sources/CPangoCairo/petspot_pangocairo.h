/* Pango lays out the poster's text (line breaks, Polish letters, fonts found by fontconfig)
 * and draws it with cairo. */
#ifndef PETSPOT_PANGOCAIRO_H
#define PETSPOT_PANGOCAIRO_H

#include <pango/pangocairo.h>

#endif
