"""lzbench: the shared machinery of Lz's benchmark runners (bench/seq/run and
bench/nofib-mini/run).

A benchmark suite is a list of programs (suite.py), each built by a few
*configurations* (a compiler and its flags: lzc -O2 -threaded, ghc -O2 -threaded,
lzc -O2 -replay recording, and replaying what it recorded), checked against its
expected output and timed k times per -N value (runner.py, on top of the
build/run/statistics primitives of measure.py; eventlog.py counts a recorded log's
events).
What the runner prints is a list of *columns*, each a small function of the
measurements of one program (report.py): adding a column, or a configuration that a
column compares against, is a few lines in the runner script.
"""
