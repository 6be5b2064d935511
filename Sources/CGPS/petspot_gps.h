/* A thin, stable face over libgps for Swift.
 *
 * gps_data_t is large (about 24 KB) and its layout changes between API versions, so Swift
 * never touches it: it is allocated here on the heap, and each read is copied into a small
 * flat snapshot. Supported: GPSD_API_MAJOR_VERSION 9 to 14 (gpsd 3.20 and later); Debian 12
 * ships 3.22, API 11.
 */
#ifndef PETSPOT_GPS_H
#define PETSPOT_GPS_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <gps.h>

#if !defined(GPSD_API_MAJOR_VERSION) || GPSD_API_MAJOR_VERSION < 9 || GPSD_API_MAJOR_VERSION > 14
#error "petspotd needs libgps with GPSD_API_MAJOR_VERSION 9 to 14 (gpsd 3.20 or later); install a supported libgps-dev"
#endif

/* One TPV report, flattened. */
typedef struct {
    int mode;               /* 0 not seen, 1 no fix, 2 2D, 3 3D */
    bool has_position;      /* mode >= 2 and finite latitude/longitude in this read */
    double latitude;
    double longitude;
    double horizontal_error_m;  /* NaN when the receiver does not say */
    long long time_sec;     /* fix time, UTC; 0 when unknown */
    long time_nsec;
    bool mode_reported;     /* this read carried a mode (a TPV) */
} petspot_gps_snapshot;

static inline struct gps_data_t *petspot_gps_new(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}

static inline void petspot_gps_free(struct gps_data_t *data) {
    free(data);
}

static inline int petspot_errno(void) {
    return errno;
}

static inline void petspot_clear_errno(void) {
    errno = 0;
}

/* Connects and starts a JSON watch. 0 on success; otherwise -1 with errno set (a negative
 * NL_* code from gps_open, which gps_errstr explains). */
static inline int petspot_gps_open_watch(struct gps_data_t *data, const char *host, const char *port) {
    errno = 0;
    if (gps_open(host, port, data) != 0) {
        return -1;
    }
    if (gps_stream(data, WATCH_ENABLE | WATCH_JSON, NULL) != 0) {
        int saved = errno;
        gps_close(data);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Ends the watch politely when the connection still works; after a failed read the socket
 * may be reset, and writing to it would only fail (or raise SIGPIPE). */
static inline void petspot_gps_close(struct gps_data_t *data, bool connection_alive) {
    if (connection_alive) {
        (void)gps_stream(data, WATCH_DISABLE, NULL);
    }
    (void)gps_close(data);
}

/* Waits up to timeout_us microseconds for data. */
static inline bool petspot_gps_waiting(struct gps_data_t *data, int timeout_us) {
    return gps_waiting(data, timeout_us);
}

/* Reads one message. `set` is cumulative in libgps, so it is cleared first: the snapshot
 * says only what this message carried. Returns what gps_read returns: -1 with errno 0 means
 * gpsd closed the connection. */
static inline int petspot_gps_read(struct gps_data_t *data, petspot_gps_snapshot *out) {
    data->set = 0;
    errno = 0;
    int result = gps_read(data, NULL, 0);
    memset(out, 0, sizeof(*out));
    out->horizontal_error_m = NAN;
    if (result <= 0) {
        return result;
    }
    if (data->set & MODE_SET) {
        out->mode_reported = true;
        out->mode = data->fix.mode;
    }
    if ((data->set & LATLON_SET) && data->fix.mode >= MODE_2D
        && isfinite(data->fix.latitude) && isfinite(data->fix.longitude)) {
        out->has_position = true;
        out->latitude = data->fix.latitude;
        out->longitude = data->fix.longitude;
        out->horizontal_error_m = data->fix.eph;
        if (!isfinite(out->horizontal_error_m) && isfinite(data->fix.epx) && isfinite(data->fix.epy)) {
            out->horizontal_error_m = sqrt(data->fix.epx * data->fix.epx + data->fix.epy * data->fix.epy);
        }
    }
    if (data->set & TIME_SET) {
        out->time_sec = (long long)data->fix.time.tv_sec;
        out->time_nsec = data->fix.time.tv_nsec;
    }
    return result;
}

#endif
