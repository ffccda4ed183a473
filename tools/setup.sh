#!/usr/bin/env bash
# Installs what building and testing nocmsg needs, and nothing that is already there.
# Debian packages via apt-get (as root, or with sudo), Rust crates via cargo (at build time), Python packages via pip.
set -euo pipefail

need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v git >/dev/null 2>&1 || need_apt+=(git)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3 python3-pip python3-venv)
command -v cargo >/dev/null 2>&1 || need_apt+=(cargo rustc)
# The simulated cores' toolchain: bare-metal RISC-V gcc and picolibc (bin/nocmsg-cc uses both).
command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 || need_apt+=(gcc-riscv64-unknown-elf)
[ -f /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ] || need_apt+=(picolibc-riscv64-unknown-elf)
# The MPI tests (tests/mpi) compare nocmsg's MPI with Debian's MPICH.
command -v mpicc.mpich >/dev/null 2>&1 || need_apt+=(mpich libmpich-dev)
command -v mpirun.mpich >/dev/null 2>&1 || need_apt+=(mpich)
ls /usr/include/*/mpich/mpi.h >/dev/null 2>&1 || need_apt+=(libmpich-dev)
# make bench compares libnocmsg with Debian's Open MPI.
if [ "${1:-}" = "--bench" ]; then
    command -v mpicc.openmpi >/dev/null 2>&1 || need_apt+=(libopenmpi-dev)
    command -v mpirun.openmpi >/dev/null 2>&1 || need_apt+=(openmpi-bin)
fi

if [ ${#need_apt[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${need_apt[*]}"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

if ! python3 -c "import matplotlib, pandas, pytest" >/dev/null 2>&1; then
    echo "setup: installing Python packages: matplotlib pandas pytest"
    if ! python3 -m pip install --quiet matplotlib pandas pytest 2>/dev/null; then
        # Debian's own Python refuses system-wide pip installs (PEP 668); fall back to its packages.
        SUDO=""
        [ "$(id -u)" -ne 0 ] && SUDO="sudo"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-matplotlib python3-pandas python3-pytest
    fi
fi
