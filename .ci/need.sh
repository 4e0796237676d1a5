# need.sh -- sourced by the .ci scripts: ci_need PKG... installs the Debian
# packages that are missing (the CI machine is Debian 12, root, with its
# mirrors reachable), quietly, and nothing when all are there.
ci_need() {
  local missing=()
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# What every build of wcodec needs.
ci_need_build() {
  ci_need cmake make gcc libc6-dev libpng-dev libtiff-dev zlib1g-dev libcmocka-dev pkg-config
}
