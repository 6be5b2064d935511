/// The version of petspotd and petspot, which ship together: what `--version` of both
/// programs and `daemon.info` say. scripts/check-version reads it from this line and holds
/// debian/changelog and the man pages to it.
public let petspotdVersion = "0.1.0"
