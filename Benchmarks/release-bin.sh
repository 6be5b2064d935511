# Sourced by the benchmark scripts: sets $bin to the folder of release petspotd and
# petspot-load (or the products in RELEASE_PRODUCTS), built in $SCRATCH (default .build-release), or to $BIN when given (a saved
# build, to compare with the current one in alternating runs).
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  for product in ${RELEASE_PRODUCTS:-petspotd petspot-load}; do swift build -c release --scratch-path "${SCRATCH:-.build-release}" --product "$product" >/dev/null; done
  bin=$(swift build -c release --scratch-path "${SCRATCH:-.build-release}" --show-bin-path)
fi
