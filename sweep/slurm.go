package sweep

import (
	"fmt"
	"strings"
)

// SlurmJob is a sweep written as a Slurm job array ('mkeysim sweep
// --emit-slurm DIR'): task I of Tasks runs slice I/Tasks of the grid
// (--shard) into Dir/slice-I, and merge.sh joins the slices into Out.
// Every path is absolute, or relative to Workdir, where the tasks run.
type SlurmJob struct {
	Binary  string   // the mkeysim to run
	Args    []string // the sweep's arguments, without --out, --shard and the job's own flags
	Tasks   int
	Dir     string // the job's directory: the scripts, the slices, the logs
	Out     string // the merged output
	Workdir string
}

// SlurmFiles are the files a SlurmJob writes in its directory.
var SlurmFiles = []string{"sweep.sbatch", "merge.sh"}

// Files returns the job's scripts: sweep.sbatch, the array (submit it
// with sbatch), and merge.sh, which joins its slices.
func (j SlurmJob) Files() []File {
	cmd := shellWords(append([]string{j.Binary, "sweep"}, j.Args...))
	var b strings.Builder
	fmt.Fprintf(&b, `#!/bin/bash
# Written by 'mkeysim sweep --emit-slurm': the sweep
#   %s
# as a job array of %d tasks, task I running slice I/%d of the grid into
# %s/slice-I. Submit it with
#   sbatch %s
# and, once every task has ended, join the slices into %s with
#   bash %s
#SBATCH --job-name=mkeysim-sweep
#SBATCH --array=1-%d
#SBATCH --cpus-per-task=1
#SBATCH --chdir=%s
#SBATCH --output=%s
set -eu
i=${SLURM_ARRAY_TASK_ID:?run this script with sbatch, or set SLURM_ARRAY_TASK_ID to 1..%d}
exec %s --workers 1 --quiet --no-summary --shard "$i/%d" --out %s"/slice-$i" >/dev/null
`, cmd, j.Tasks, j.Tasks, j.Dir, shellWord(j.Dir+"/sweep.sbatch"), j.Out, shellWord(j.Dir+"/merge.sh"),
		j.Tasks, shellWord(j.Workdir), shellWord(j.Dir+"/slice-%a.log"), j.Tasks, cmd, j.Tasks, shellWord(j.Dir))
	var m strings.Builder
	fmt.Fprintf(&m, `#!/bin/bash
# Written by 'mkeysim sweep --emit-slurm': joins the %d slices of the job
# array sweep.sbatch into %s ('mkeysim merge'), with its plots.
set -eu
cd %s
exec %s`, j.Tasks, j.Out, shellWord(j.Workdir), shellWords([]string{j.Binary, "merge", j.Out}))
	for i := 1; i <= j.Tasks; i++ {
		fmt.Fprintf(&m, " %s", shellWord(fmt.Sprintf("%s/slice-%d", j.Dir, i)))
	}
	m.WriteString("\n")
	return []File{{Name: "sweep.sbatch", Data: []byte(b.String())}, {Name: "merge.sh", Data: []byte(m.String())}}
}

// shellWords quotes each word for bash and joins them with spaces.
func shellWords(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = shellWord(w)
	}
	return strings.Join(q, " ")
}

// shellWord quotes w for bash unless it is made only of characters that
// need no quoting.
func shellWord(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./,:@%") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
