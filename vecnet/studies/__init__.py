"""Stage 7, parameter studies: a model (or its file) and parameter sets in; one row of results per
case out (Study), formulated and compiled once, run here, in workers or on a Dask cluster."""
