/* cli_mpi_absent.c -- compiled when the build has no MPI (WCODEC_MPI=OFF,
 * or AUTO without an MPI found): started by mpirun, each rank would code
 * every file, so the command refuses instead. */
#include <stdio.h>

#include "cli_batch.h"

const char cli_mpi_build[] = "not built in";

const char cli_spread_help[] =
    "This wcodec was built without MPI: it cannot share files among mpirun's ranks.\n";

int cli_mpi_batch(const cli_batch_opts *o, int decode, char **args, int nargs)
{
    (void)o, (void)decode, (void)args, (void)nargs;
    fprintf(stderr, "wcodec: started by mpirun, but this wcodec was built without MPI "
                    "(configure with -DWCODEC_MPI=ON and libopenmpi-dev)\n");
    return CLI_BAD;
}
