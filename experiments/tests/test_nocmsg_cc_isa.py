"""bin/nocmsg-cc builds for the ISA of the chip (issue 16): core.isa of `--chip FILE` or $NOCMSG_CHIP picks -march,
-mabi and the C library, and the runtime and libnocmsg are built once per ISA, side by side in the tree.

Programs are checked with readelf (ELF flags and the RISC-V arch attribute), not run: the simulator learns RVC and
floating point on other branches of issue 16. Only the default RV64IM builds run, and they must stay byte-identical
to what the wrapper built before chips had an ISA, since the golden cycle counts of the other tests rest on them.
"""

import os
import re
import shlex
import subprocess

import pytest

from experiments.common import REPO, nocmsg_binary

CC = REPO / "bin" / "nocmsg-cc"
MPICC = REPO / "bin" / "sim" / "mpicc"
MPIRUN = REPO / "bin" / "sim" / "mpirun"
HELLO = REPO / "tests" / "programs" / "hello.c"
RING = REPO / "tests" / "mpi" / "ring.c"
PI = REPO / "tests" / "mpi" / "pi.c"  # uses libm

# core.isa (None: no chip) -> gcc's -march and -mabi, the ELF header's e_flags (bit 0 RVC, bits 1-2 the float ABI:
# 0 soft, 4 double) and the single-letter extensions of the arch attribute.
ISAS = {
    None: ("rv64im", "lp64", 0x0, "im"),
    "rv64imac": ("rv64imac", "lp64", 0x1, "imac"),
    "rv64gc": ("rv64imafdc", "lp64d", 0x5, "imafdc"),
}
# Multi-letter extensions the arch attribute may name besides: implied by the letters, and always on the cores.
IMPLIED = {"zicsr", "zifencei", "zmmul"}
# The flags of the wrapper before chips had an ISA (git 63679ef, bin/nocmsg-cc), which the default must keep.
OLD_FLAGS = ["-march=rv64im", "-mabi=lp64", "-mcmodel=medany", "--specs=picolibc.specs", "--oslib=semihost",
             "-DNOCMSG_SIM", "-D_POSIX_TIMERS=200809L", "-D_POSIX_MONOTONIC_CLOCK=200809L",
             "-D_POSIX_CPUTIME=200809L", f"-I{REPO}/runtime/include", f"-I{REPO}/lib/include"]


def environment(chip=None):
    """The caller's environment without its own NOCMSG_CHIP (or with this one)."""
    env = {k: v for k, v in os.environ.items() if k != "NOCMSG_CHIP"}
    if chip is not None:
        env["NOCMSG_CHIP"] = str(chip)
    return env


def run(cmd, env=None):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env or environment())


def checked(cmd, env=None):
    out = run(cmd, env)
    assert out.returncode == 0, f"{shlex.join(map(str, cmd))}\n--- stdout\n{out.stdout}--- stderr\n{out.stderr}"
    return out.stdout


def chip_with(directory, isa):
    """chips/pimp-2x2.toml with core.isa set to isa (None: left out), as a file in directory."""
    text = (REPO / "chips" / "pimp-2x2.toml").read_text()
    text = re.sub(r"^isa\s*=.*\n", "", text, flags=re.M)  # the preset may name its ISA
    assert "\n[core]\n" in text
    if isa is not None:
        value = isa if isinstance(isa, int) else f'"{isa}"'
        text = text.replace("\n[core]\n", f"\n[core]\nisa = {value}\n")
    path = directory / f"isa-{isa}.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def chips(tmp_path_factory):
    directory = tmp_path_factory.mktemp("chips")
    return {isa: chip_with(directory, isa) for isa in ISAS if isa is not None}


def chip_option(chips, isa):
    return [] if isa is None else ["--chip", chips[isa]]


@pytest.fixture(scope="module")
def built(chips, tmp_path_factory):
    """hello.c and the MPI program ring.c for every ISA: {(isa, program): elf}."""
    directory = tmp_path_factory.mktemp("elf")
    elves = {}
    for isa in ISAS:
        for source in (HELLO, RING):
            elf = directory / f"{source.stem}-{isa or 'default'}.elf"
            checked([CC, *chip_option(chips, isa), "-O2", "-Wall", source, "-o", elf])
            elves[isa, source.stem] = elf
    return elves


def readelf(option, path):
    return checked(["riscv64-unknown-elf-readelf", option, path])


def elf_flags(path):
    """e_flags from `readelf -h` (of an archive: the set over its members)."""
    found = {int(f, 16) for f in re.findall(r"^\s*Flags:\s+(0x[0-9a-f]+)", readelf("-h", path), re.M)}
    assert found, f"no ELF header in {path}"
    return found


def member_flags(archive):
    """e_flags of each member of an archive, by name."""
    found = re.findall(r"^File: .*\((.+)\)\n(?:.*\n)*?\s*Flags:\s+(0x[0-9a-f]+)", readelf("-h", archive), re.M)
    return {member: int(flags, 16) for member, flags in found}


def arch_extensions(path):
    """The extensions the arch attribute names: "rv64i2p1_m2p0_c2p0_zmmul1p0" -> ({"i", "m", "c"}, {"zmmul"})."""
    attribute = re.search(r'Tag_RISCV_arch: "rv64([^"]+)"', readelf("-A", path))
    assert attribute, f"no RV64 arch attribute in {path}"
    names = {re.sub(r"\d+p\d+$", "", e) for e in attribute.group(1).split("_")}
    return {n for n in names if len(n) == 1}, {n for n in names if len(n) > 1}


@pytest.mark.parametrize("isa", ISAS, ids=lambda isa: isa or "no-chip")
def test_the_elf_has_the_flags_and_arch_attribute_of_the_chips_isa(built, isa):
    _, _, flags, letters = ISAS[isa]
    for program in ("hello", "ring"):
        elf = built[isa, program]
        assert elf_flags(elf) == {flags}, f"{elf}: e_flags"
        single, named = arch_extensions(elf)
        assert single == set(letters), f"{elf}: arch attribute"
        assert named <= IMPLIED, f"{elf}: arch attribute"


@pytest.mark.parametrize("isa", ISAS, ids=lambda isa: isa or "no-chip")
def test_show_prints_the_chips_march_and_mabi_and_its_build_directories(chips, isa):
    march, mabi, _, _ = ISAS[isa]
    words = checked([CC, *chip_option(chips, isa), "-show", "-O2", HELLO, "-o", "x.elf"]).split()
    assert [w for w in words if w.startswith(("-march=", "-mabi="))] == [f"-march={march}", f"-mabi={mabi}"]
    assert "--chip" not in words and (isa is None or not any(str(chips[isa]) in w for w in words))
    assert f"{REPO}/runtime/build/{march}-{mabi}/crt0.o" in words
    assert f"{REPO}/lib/build/sim-{march}-{mabi}/libnocmsg.a" in words
    # Compiling only: the same flags, nothing linked.
    words = checked([CC, *chip_option(chips, isa), "-show", "-c", HELLO]).split()
    assert words[1:3] == [f"-march={march}", f"-mabi={mabi}"] and "-nostartfiles" not in words


@pytest.mark.parametrize("isa", ISAS, ids=lambda isa: isa or "no-chip")
def test_runtime_libnocmsg_and_the_c_library_are_those_of_the_isa(chips, built, isa, tmp_path):
    march, mabi, flags, _ = ISAS[isa]
    runtime = REPO / "runtime" / "build" / f"{march}-{mabi}"
    for obj in ("crt0.o", "start.o", "mem.o", "posix.o"):
        assert elf_flags(runtime / obj) == {flags}, obj
    assert elf_flags(REPO / "lib" / "build" / f"sim-{march}-{mabi}" / "libnocmsg.a") == {flags}
    # gcc picks the C library by multilib; rv64gc's is gcc's default ('.'), not a directory named after it. Every
    # archive member the link took (the map's list) must be of the ISA. (Not every member of the archives: picolibc's
    # libm.a is one empty object, the same rv64imafdc one in every multilib; its functions are in libc.a.)
    link_map = tmp_path / "pi.map"
    checked([CC, *chip_option(chips, isa), "-O2", PI, "-o", tmp_path / "pi.elf", "-lm", f"-Wl,-Map={link_map}"])
    taken = set(re.findall(r"^(/\S+\.a)\(([^)\s]+)\)$", link_map.read_text(), re.M))
    assert {os.path.basename(a) for a, _ in taken} >= {"libc.a", "libgcc.a", "libsemihost.a", "libnocmsg.a"}, taken
    for archive in {a for a, _ in taken}:
        members = member_flags(archive)
        for member in (m for a, m in taken if a == archive):
            assert members[member] == flags, f"{archive}({member})"


def test_without_a_chip_the_program_is_byte_identical_to_the_old_flags_build(chips, built, tmp_path):
    """The default is RV64IM as before: the ELF equals a direct gcc build with the wrapper's old flags, and those of
    a chip without core.isa, of isa = "rv64im" and of NOCMSG_CHIP naming a preset."""
    default = built[None, "hello"].read_bytes()
    runtime = [REPO / "runtime" / "build" / "rv64im-lp64" / f"{o}.o" for o in ("crt0", "start", "mem", "posix")]
    old = tmp_path / "old.elf"
    checked(["riscv64-unknown-elf-gcc", *OLD_FLAGS, "-nostartfiles", "-T", REPO / "runtime" / "nocmsg.ld", *runtime,
             "-O2", "-Wall", HELLO, "-o", old, REPO / "lib" / "build" / "sim-rv64im-lp64" / "libnocmsg.a"])
    assert old.read_bytes() == default
    others = {
        "chip without core.isa": ([CC, "--chip", chip_with(tmp_path, None)], None),
        "preset pimp-2x2": ([CC, "--chip", REPO / "chips" / "pimp-2x2.toml"], None),
        'isa = "rv64im"': ([CC, "--chip", chip_with(tmp_path, "rv64im")], None),
        "NOCMSG_CHIP=pimp-4x4": ([CC], "pimp-4x4"),
        "-march=rv64im -mabi=lp64 given": ([CC, "-march=rv64im", "-mabi=lp64"], None),
    }
    for name, (cmd, env_chip) in others.items():
        elf = tmp_path / "other.elf"
        checked([*cmd, "-O2", "-Wall", HELLO, "-o", elf], environment(env_chip))
        assert elf.read_bytes() == default, name


def test_the_default_programs_run_on_the_simulator(built):
    nocmsg = nocmsg_binary()
    out = checked([nocmsg, "run", "--chip", REPO / "chips" / "pimp-2x2.toml", "-n", "1", built[None, "hello"]])
    assert out == "[core 0] hello from core 0 of 1\n"
    out = checked([MPIRUN, "-n", "4", built[None, "ring"]], {**environment("pimp-2x2"), "NOCMSG": str(nocmsg)})
    assert out == (REPO / "tests" / "mpi" / "ring.expected").read_text()


def test_the_mpi_wrappers_take_the_chip_from_nocmsg_chip_or_chip(chips):
    words = checked([MPICC, "-show", "-c", RING], environment(chips["rv64imac"])).split()
    assert words[1:3] == ["-march=rv64imac", "-mabi=lp64"]
    words = checked([MPICC, "--chip", chips["rv64gc"], "-show", "-c", RING], environment(chips["rv64imac"])).split()
    assert words[1:3] == ["-march=rv64imafdc", "-mabi=lp64d"], "--chip wins over NOCMSG_CHIP"


def one_line_error(cmd, env=None):
    out = run(cmd, env)
    assert out.returncode == 2, out
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("nocmsg-cc: "), out.stderr
    return out.stderr


def test_an_isa_the_cores_cannot_have_is_one_error_line_naming_the_key_and_value(tmp_path):
    for isa in ("rv64imxyz", "rv64imd", "rv64imca", "rv32imac", "rv64im_zba"):
        message = one_line_error([CC, "--chip", chip_with(tmp_path, isa), "-c", HELLO, "-o", tmp_path / "x.o"])
        assert f'core.isa = "{isa}" is not an ISA the cores can have' in message
    assert "core.isa = 64 is not an ISA" in one_line_error([CC, "--chip", chip_with(tmp_path, 64), "-c", HELLO])
    broken = tmp_path / "broken.toml"
    broken.write_text("[core\n")
    assert "is not valid TOML" in one_line_error([CC, "--chip", broken, "-c", HELLO])
    assert "no preset chips/pimp-5x5.toml" in one_line_error([CC, "-c", HELLO], environment("pimp-5x5"))


def test_an_isa_whose_c_library_would_use_more_is_refused_when_linking(tmp_path):
    # Debian's gcc has no multilib for rv64imfdc/lp64d and would link its default rv64imafdc's, with atomics.
    chip = chip_with(tmp_path, "rv64imfdc")
    message = one_line_error([CC, "--chip", chip, HELLO, "-o", tmp_path / "x.elf"])
    assert "no C library for -march=rv64imfdc -mabi=lp64d" in message and "uses A, which the cores lack" in message


def test_march_or_mabi_of_the_users_own_must_agree_with_the_chip(chips):
    message = one_line_error([CC, "--chip", chips["rv64imac"], "-march=rv64gc", "-c", HELLO])
    assert '-march=rv64gc disagrees with core.isa = "rv64imac"' in message
    message = one_line_error([CC, "-mabi=lp64d", "-c", HELLO])
    assert '-mabi=lp64d disagrees with the cores\' ISA when no chip is given, "rv64im"' in message
    # The same ISA spelt another way is the chip's, and given once.
    words = checked([CC, "--chip", chips["rv64gc"], "-march=rv64imafdc_zicsr_zifencei", "-show", "-c", HELLO]).split()
    assert [w for w in words if w.startswith("-march=")] == ["-march=rv64imafdc"]
