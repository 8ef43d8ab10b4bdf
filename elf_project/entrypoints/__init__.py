"""Console entry points (elf-api, elf-worker, elf-stack, manage.py).

Importing this package, before anything loads numpy, gives the native math libraries' own thread pools one
thread each: the processes get their parallelism from gunicorn workers, request threads and Celery processes,
and an OpenBLAS pool per process would only oversubscribe the cores (docs/operations.md, "Sizing"). Plumbing, not
configuration: these variables are always set, whatever the environment held.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
