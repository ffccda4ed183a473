"""Command-line entry: ``python -m experiments NAME [options]``."""

import argparse
import inspect
import sys

from . import (bcast_algorithms, fc_elimination, fpu, micro_pimp, noc_load, noc_validation, nocmsg_deadlock,
               nocmsg_vs_opera, partitions, pimp_vs_mpb, scc_bcast, shmem_vs_msg)

EXPERIMENTS = {
    "noc-load": noc_load,
    "noc-validation": noc_validation,
    "micro-pimp": micro_pimp,
    "bcast-algorithms": bcast_algorithms,
    "fpu": fpu,
    "scc-bcast": scc_bcast,
    "pimp-vs-mpb": pimp_vs_mpb,
    "nocmsg-deadlock": nocmsg_deadlock,
    "partitions": partitions,
    "nocmsg-vs-opera": nocmsg_vs_opera,
    "fc-elimination": fc_elimination,
    "shmem-vs-msg": shmem_vs_msg,
}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m experiments", description=__doc__)
    parser.add_argument("name", choices=sorted(EXPERIMENTS), help="experiment to run")
    parser.add_argument("--quick", action="store_true", help="a short version (for the demo and tests)")
    parser.add_argument("--out", default=None, help="output directory (default results/NAME)")
    parser.add_argument("--ranks", default=None,
                        help="only these core counts, comma-separated (experiments that sweep them: nocmsg-vs-opera)")
    args = parser.parse_args(argv)
    module = EXPERIMENTS[args.name]
    options = {}
    if args.ranks is not None:
        if "ranks" not in inspect.signature(module.run).parameters:
            parser.error(f"{args.name} does not take --ranks")
        try:
            options["ranks"] = [int(r) for r in args.ranks.split(",")]
        except ValueError:
            parser.error(f"--ranks {args.ranks}: not a comma-separated list of core counts")
    module.run(out_dir=args.out or f"results/{args.name}", quick=args.quick, **options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
