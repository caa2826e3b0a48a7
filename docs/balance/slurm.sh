#!/bin/bash
# A Crown balance run as a Slurm job array: one shard per array task.
#
#   sbatch --array=0-15 docs/balance/slurm.sh          # 16 shards
#   # when they are done (or: sbatch --dependency=afterok:<jobid> --wrap 'crown sim merge ...'):
#   crown sim merge results/shard-*.json --json > results/summary.json
#
# Every task must see the same project (a shared file system, or the same git revision
# checked out on each node) and the same crown binary.
#SBATCH --job-name=crown-sim
#SBATCH --cpus-per-task=8
#SBATCH --mem=1G
#SBATCH --time=02:00:00
#SBATCH --output=results/slurm-%A_%a.out

set -euo pipefail
PROJECT=${PROJECT:-$PWD}
PACK=${PACK:-take-the-kingdom}
GAMES=${GAMES:-1000000}
SEED=${SEED:-7}
mkdir -p results

crown --project "$PROJECT" sim "$PACK" \
    --players 4 --games "$GAMES" --seed "$SEED" \
    --seat-order rotate --characters sweep \
    --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" \
    --out "results/shard-${SLURM_ARRAY_TASK_ID}.json"
