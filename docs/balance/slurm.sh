#!/bin/bash
# A Crown balance run as a Slurm job array: one shard per array task.
#
#   sbatch --array=0-15 --export=ALL,SHARDS=16 docs/balance/slurm.sh    # 16 shards; note the job id
#   sbatch --dependency=afterany:JOBID --wrap 'crown sim merge results/shard-*.json --json'
#
# The merge runs once every task has ended, whether it succeeded or not (`afterany`: with
# `afterok`, one failed task leaves the merge pending for ever). It writes the summary to
# the merge job's output file (`slurm-JOBID.out`), or names the game ranges that are
# missing (shard I of SHARDS holds games GAMES*I/SHARDS up to GAMES*(I+1)/SHARDS).
# Re-run one shard, here shard 5, with the same command and its number alone:
#
#   sbatch --array=5 --export=ALL,SHARDS=16 docs/balance/slurm.sh
#
# (or `scontrol requeue JOBID_5` while the array is still known to Slurm), then merge again
# with the same merge command, depending on the re-run's job id instead.
# SHARDS is the run's shard count, the same for every task and every re-run: it is not
# taken from the array's size, which a re-run of one task does not have.
#
# Every task must see the same project (a shared file system, or the same git revision
# checked out on each node) and the same crown binary. Ask for no more CPUs per task than
# a node has: a task that asks for more waits in the queue for ever (`squeue` shows it
# pending with the reason `Resources`). The log goes to the folder sbatch was run from
# (Slurm opens it before the script starts, so it cannot be in a folder the script makes).
#SBATCH --job-name=crown-sim
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=02:00:00
#SBATCH --output=crown-sim-%A_%a.out

set -euo pipefail
: "${SHARDS:?set SHARDS to the number of shards of the run: sbatch --array=0-15 --export=ALL,SHARDS=16 docs/balance/slurm.sh}"
PROJECT=${PROJECT:-$PWD}
PACK=${PACK:-take-the-kingdom}
GAMES=${GAMES:-1000000}
SEED=${SEED:-7}
mkdir -p results

crown --project "$PROJECT" sim "$PACK" \
    --players 4 --games "$GAMES" --seed "$SEED" \
    --seat-order rotate --characters sweep \
    --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "${SLURM_ARRAY_TASK_ID}/${SHARDS}" \
    --out "results/shard-${SLURM_ARRAY_TASK_ID}.json"
