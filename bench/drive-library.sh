# Sourced by the bench scripts that run every drive-library profile (bench/drives.sh,
# bench/latency-load-drives.sh): the profile list, the release binary, and a runner.
# for_each_profile OUT CMD...: runs CMD (sh -c text, "{}" the profile, "$bin" and "$out" set)
# for each profile, JOBS at once (default 1). PROFILES="a b" runs those alone.
profiles=(pm9a3 pe8110 p5520 sn640 7450pro 7450max pm1733 cm7r i4i)
if [ -n "${PROFILES:-}" ]; then
  read -r -a profiles <<< "$PROFILES"
fi
cargo build --release -q -p ssdiq
bin=target/release/ssdiq
for_each_profile() {
  out=$1
  shift
  mkdir -p "$out"
  export bin out
  printf '%s\n' "${profiles[@]}" | xargs -P "${JOBS:-1}" -I{} sh -c "$@"
}
