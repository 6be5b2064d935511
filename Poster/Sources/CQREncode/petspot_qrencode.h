/* libqrencode makes the QR code's modules; the poster draws them. */
#ifndef PETSPOT_QRENCODE_H
#define PETSPOT_QRENCODE_H

#include <qrencode.h>

#endif
