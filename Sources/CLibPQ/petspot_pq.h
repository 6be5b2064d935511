/* libpq, PostgreSQL's own client library (Debian's libpq5), as the relay sees it.
 *
 * Nothing is wrapped: libpq's API has been stable for decades and Swift calls it as it is. The
 * header's folder comes from pkg-config (libpq-dev: -I/usr/include/postgresql).
 */
#ifndef PETSPOT_PQ_H
#define PETSPOT_PQ_H

#include <libpq-fe.h>

#endif
