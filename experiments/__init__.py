"""nocmsg experiments: each module runs the simulator, keeps raw data, plots, and records how it was made.

Run one with ``python -m experiments NAME [--quick]``; results go to ``results/NAME/``.
"""
