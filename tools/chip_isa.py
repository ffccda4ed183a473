"""The chip side of bin/nocmsg-cc and bin/sim/mpirun: which chip file a name means, which -march/-mabi and C
library its cores' ISA (``core.isa``) calls for, and which port of libnocmsg its network interface (``ni.kind``) needs.

A program has to be built for the ISA of the chip that runs it: compressed instructions only where the cores have C,
the hard-float ABI only where they have F or D (the simulator refuses anything else at load time). The ISA is the
chip file's ``core.isa``; a chip without the key has RV64IM cores (the PIMP presets). Likewise libnocmsg talks to one
kind of network interface: ``ni.kind = "mpb"`` needs the MPB port (lib/ports/mpb.c), ``ni.kind = "udn"`` the UDN port
(lib/ports/udn.c), every other chip gets the PIMP port (the default). The rules live here, in one place, so that the compiler wrapper, the MPI wrappers and their tests
agree.

    chip_isa.py resolve PROG CHIP                    the chip file CHIP means (a path, or a preset name)
    chip_isa.py flags PROG [--chip CHIP] [--march M] [--mabi A]
                                                     "MARCH MABI PORT" for the chip (default RV64IM and the PIMP
                                                     port, "pimp"; "mpb" for MPB chips, "udn" for UDN chips); -march/-mabi the user gave
                                                     must agree with the chip's
    chip_isa.py multilib PROG CC MARCH MABI          checks that CC links a C library the cores can run

PROG names the calling command in messages. Every error is one line on stderr, exit status 2.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python before 3.11: said in one line when a chip file has to be read
    tomllib = None

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ISA = "rv64im"
# libnocmsg's port for each ni.kind that has one of its own; other chips (and chips without [ni]) get the default.
PORTS = {"mpb": "mpb", "udn": "udn"}
DEFAULT_PORT = "pimp"
# What core.isa may say: RV64I, then the single-letter extensions in canonical order (D needs F), or G (= IMAFD);
# Zicsr and Zifencei are always there and may be named.
ISA_FORMS = ('"rv64i" followed by any of m, a, f, d, c in that order (d only with f), or "rv64g", "rv64gc"; '
             'optionally "_zicsr", "_zifencei"')
ISA_RE = re.compile(r"rv64(?:(g)|i(m?)(a?)(f?)(d?))(c?)(?:_zicsr)?(?:_zifencei)?")
ALWAYS_THERE = {"zicsr", "zifencei"}


class Refused(Exception):
    """A one-line reason why no flags can be given."""


def extensions(isa):
    """The single-letter extensions after RV64I, canonical order ("imafdc" -> "mafdc"), or None if isa is not one
    the cores can have."""
    match = ISA_RE.fullmatch(isa) if isinstance(isa, str) else None
    if match is None:
        return None
    g, m, a, f, d, c = match.groups()
    letters = "mafd" if g else m + a + f + d
    if "d" in letters and "f" not in letters:
        return None
    return letters + c


def march_mabi(letters):
    """gcc's -march and -mabi for these extensions: the ABI passes floating point in registers as wide as the
    widest FP extension, as the multilibs of riscv64-unknown-elf-gcc (and picolibc's) are built."""
    abi = "lp64d" if "d" in letters else "lp64f" if "f" in letters else "lp64"
    return "rv64i" + letters, abi


def resolve(chip):
    """A chip file: CHIP itself if it is a file, else the preset chips/CHIP.toml (".toml" optional)."""
    path = Path(chip)
    if path.is_file():
        return path
    if "/" not in chip:
        preset = ROOT / "chips" / (chip if chip.endswith(".toml") else chip + ".toml")
        if preset.is_file():
            return preset
        presets = ", ".join(sorted(p.stem for p in (ROOT / "chips").glob("*.toml")))
        raise Refused(f"chip {quoted(chip)}: no such file, and no preset chips/{preset.name} (presets: {presets})")
    raise Refused(f"chip file {chip}: no such file")


def load_chip(path):
    """A chip file's tables."""
    if tomllib is None:
        raise Refused(f"reading chip file {path} needs Python 3.11 or later (tomllib); this is {sys.version.split()[0]}")
    try:
        with open(path, "rb") as f:
            chip = tomllib.load(f)
    except OSError as e:
        raise Refused(f"chip file {path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise Refused(f"chip file {path} is not valid TOML: {e}") from None
    return chip


def chip_isa(path, chip=None):
    """core.isa of a chip file, or the default when the file leaves it out."""
    chip = load_chip(path) if chip is None else chip
    core = chip.get("core", {})
    if not isinstance(core, dict):
        raise Refused(f"chip file {path}: core must be a table ([core])")
    return core.get("isa", DEFAULT_ISA)


def chip_port(path, chip):
    """libnocmsg's port for the chip's network interface (ni.kind)."""
    ni = chip.get("ni", {})
    if not isinstance(ni, dict):
        raise Refused(f"chip file {path}: ni must be a table ([ni])")
    return PORTS.get(ni.get("kind"), DEFAULT_PORT)


def quoted(value):
    """A value on one line, strings in double quotes as in TOML (JSON's escapes keep a newline from splitting it)."""
    return json.dumps(value, default=str)


def flags(chip, user_march, user_mabi):
    """(march, mabi, port) for the chip (None: no chip, the default ISA and port), checked against the user's own
    -march/-mabi."""
    if chip is None:
        isa, port = DEFAULT_ISA, DEFAULT_PORT
    else:
        path = resolve(chip)
        tables = load_chip(path)
        isa, port = chip_isa(path, tables), chip_port(path, tables)
        if extensions(isa) is None:
            raise Refused(f"chip file {path}: core.isa = {quoted(isa)} is not an ISA the cores can have: {ISA_FORMS}")
    letters = extensions(isa)
    march, mabi = march_mabi(letters)
    # The runtime, libnocmsg and the C library are built for the chip's ISA; code for another one would not link
    # with them (another float ABI) or not run on the cores (extensions they lack). The chip decides.
    given = (("-march", user_march, extensions(user_march) == letters), ("-mabi", user_mabi, user_mabi == mabi))
    wrong = [f"{option}={value}" for option, value, agrees in given if value is not None and not agrees]
    conflicts = " ".join(wrong) + (" disagree" if len(wrong) > 1 else " disagrees")
    if wrong and chip is None:
        raise Refused(f"{conflicts} with the cores' ISA when no chip is given, {quoted(isa)} (-march={march} "
                      f"-mabi={mabi}): name a chip with the ISA you want (--chip FILE or NOCMSG_CHIP)")
    if wrong:
        raise Refused(f"{conflicts} with core.isa = {quoted(isa)} of chip {path} (-march={march} "
                      f"-mabi={mabi}): the chip decides the ISA; name one with the ISA you want")
    return march, mabi, port


def multilib(cc, march, mabi):
    """Checks that the C library and libgcc CC links for march/mabi only use extensions the cores have: gcc picks
    the closest multilib it has, and for some ISAs (rv64imfdc) that is one with more (rv64imafdc)."""
    def ask(*args):
        return subprocess.run([cc, *args], check=True, capture_output=True, text=True).stdout

    directory = ask(f"-march={march}", f"-mabi={mabi}", "-print-multi-directory").strip()
    if directory == ".":
        # gcc's default multilib: the ISA and ABI gcc was configured for (e.g. rv64imafdc_zicsr, lp64d).
        target = dict(re.findall(r"^\s*-m(arch|abi)=\s*(\S+)", ask("-Q", "--help=target"), re.M))
        lib_march, lib_mabi = target.get("arch", "?"), target.get("abi", "?")
    else:
        lib_march, _, lib_mabi = directory.partition("/")
    base, *named = lib_march.split("_")
    lib_letters = extensions(base)
    chip_letters = set(march[len("rv64i"):])
    extra = sorted(set(lib_letters) - chip_letters) if lib_letters is not None else [base]
    extra += sorted(set(named) - ALWAYS_THERE)
    if extra:
        why = f"uses {', '.join(e.upper() if len(e) == 1 else e for e in extra)}, which the cores lack"
    elif lib_mabi != mabi:
        why = f"has the ABI {lib_mabi}"
    else:
        return directory
    raise Refused(f"{cc} has no C library for -march={march} -mabi={mabi}: the closest it has, "
                  f"{lib_march}/{lib_mabi}, {why}; choose an ISA it has a multilib for ({cc} -print-multi-lib)")


def main(argv):
    command, prog, *rest = argv
    try:
        if command == "resolve":
            (chip,) = rest
            print(resolve(chip))
        elif command == "flags":
            options = {"--chip": None, "--march": None, "--mabi": None}
            for name, value in zip(rest[::2], rest[1::2]):
                options[name] = value
            print(*flags(options["--chip"], options["--march"], options["--mabi"]))
        elif command == "multilib":
            cc, march, mabi = rest
            print(multilib(cc, march, mabi))
        else:
            raise SystemExit(f"chip_isa.py: unknown command {command}")
    except Refused as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print(f"{prog}: {' '.join(e.cmd)} failed: {e.stderr.strip()}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
