#!/bin/bash
# fsmove scan as a Slurm job array: task k (1..N) scans shard k of N.
#   sbatch --array=1-8 tools/scan/slurm-array.sh modules.txt /shared/results
# then: fsmove merge /shared/results/shard-* -o /shared/results/all
#SBATCH --job-name=fsmove-scan
#SBATCH --cpus-per-task=2
#SBATCH --time=12:00:00
set -u
list=${1:?module list}; out=${2:?results directory}
fsmove scan --list "$list" --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" -j 2 -q \
  -o "$out/shard-$SLURM_ARRAY_TASK_ID"
rc=$?
[ "$rc" -le 1 ] || exit "$rc"   # 1 = findings: the task itself succeeded
