"""A guided tour of eager2graph: every example of the seed documents, in order.

    python examples/tour.py           # full timings
    python examples/tour.py --quick   # short timings (a few seconds in all)
"""

import argparse
import importlib
import os
import sys

TOUR = [
    ("graphs_from_functions", "Graphs from functions"),
    ("control_flow", "Control flow, and the code it becomes"),
    ("polymorphism", "One function, many graphs"),
    ("side_effects", "Python side effects vs. rt.print"),
    ("non_strict", "Non-strict execution"),
    ("fizzbuzz", "FizzBuzz over a tensor range"),
    ("speedup", "Seeing the speed-up"),
    ("physics_kinematics", "Many small operations over sets of kinematics"),
    ("gradients", "Automatic differentiation: tapes, dynamic models, custom gradients"),
    ("local_fit", "Training: local fits of the cross section with Adam"),
]


def main(quick: bool = False) -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    for module_name, title in TOUR:
        print(f"\n{'=' * 8} {title} ({module_name}.py) {'=' * 8}")
        importlib.import_module(module_name).main(quick)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short timings")
    main(parser.parse_args().quick)
