package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mkeysim/internal/bounded"
	"mkeysim/internal/tooltest"
)

// slurmSweep is the sweep the job-array tests run: six points, small.
var slurmSweep = []string{"sweep", "--vary", "mkc_cache.ways=1,2,4", "--vary", "mtt.walkers=1,8",
	"--workload.accesses", "3000", "--workload.keys", "64", "--mkc-cache.sets", "4"}

// emitJob writes slurmSweep as a job array of tasks tasks with the built
// binary, and runs it locally without --emit-slurm into local/; it
// returns the job's directory, where the merged output goes, and the
// local output.
func emitJob(t *testing.T, tasks string) (job, merged, local string) {
	t.Helper()
	bin := binary(t)
	dir := t.TempDir()
	job, merged, local = filepath.Join(dir, "job"), filepath.Join(dir, "merged"), filepath.Join(dir, "local")
	cmd := bounded.Command(bin, append(slices.Clone(slurmSweep), "--out", merged, "--emit-slurm", job, "--slurm-tasks", tasks)...)
	cmd.Dir = dir
	if r := cmd.Run(); r.ExitCode != 0 || !strings.Contains(string(r.Stderr)+string(r.Stdout), "wrote a job array of "+tasks+" tasks for 6 points") {
		t.Fatalf("--emit-slurm: %s\n%s", r.String(), r.Stdout)
	}
	for _, f := range []string{"sweep.sbatch", "merge.sh"} {
		if out, err := exec.Command("bash", "-n", filepath.Join(job, f)).CombinedOutput(); err != nil {
			t.Fatalf("%s is not valid bash: %v\n%s", f, err, out)
		}
	}
	cmd = bounded.Command(bin, append(slices.Clone(slurmSweep), "--quiet", "--out", local)...)
	cmd.Dir = dir
	if r := cmd.Run(); r.ExitCode != 0 {
		t.Fatalf("local sweep: %s", r.String())
	}
	return job, merged, local
}

// mergeAndCompare runs the job's merge.sh and checks that the merged
// rows are the local run's (but for wall time), plots included.
func mergeAndCompare(t *testing.T, job, merged, local string) {
	t.Helper()
	if out, err := exec.Command("bash", filepath.Join(job, "merge.sh")).CombinedOutput(); err != nil {
		t.Fatalf("merge.sh: %v\n%s", err, out)
	}
	for _, name := range []string{"sweep.csv", "sweep.json"} {
		got, _ := os.ReadFile(filepath.Join(merged, name))
		want, _ := os.ReadFile(filepath.Join(local, name))
		if dropWall(t, name, got) != dropWall(t, name, want) {
			t.Errorf("merged job array's %s differs from the local sweep's:\n%s\n---\n%s", name, got, want)
		}
	}
	if names := listDir(t, merged); !slices.Contains(names, "throughput.png") {
		t.Errorf("merged output lacks its plots: %v", names)
	}
}

// TestEmitSlurmTasksByHand: the job array's tasks, run one by one as
// Slurm would (SLURM_ARRAY_TASK_ID=1..N), and its merge.sh give the rows
// of the sweep run locally. No Slurm needed.
func TestEmitSlurmTasksByHand(t *testing.T) {
	job, merged, local := emitJob(t, "4")
	for i := 1; i <= 4; i++ {
		cmd := exec.Command("bash", filepath.Join(job, "sweep.sbatch"))
		cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+string(rune('0'+i)))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("task %d: %v\n%s", i, err, out)
		}
	}
	mergeAndCompare(t, job, merged, local)
}

// TestSlurmJobArray brings up a Slurm cluster of this one machine
// (scripts/slurm-single-node.sh: munge, slurmctld and slurmd inside a
// temporary directory), submits the job array --emit-slurm wrote, waits
// for it, merges its slices and compares them with the sweep run locally.
func TestSlurmJobArray(t *testing.T) {
	tooltest.Need(t, tooltest.Slurm...)
	if os.Geteuid() != 0 {
		t.Skip("starting slurmd needs root: skipped (TestEmitSlurmTasksByHand runs the tasks without Slurm)")
	}
	job, merged, local := emitJob(t, "3")
	cluster := filepath.Join(t.TempDir(), "cluster")
	script := filepath.Join(repoRoot, "scripts", "slurm-single-node.sh")
	out, err := exec.Command(script, "start", cluster).CombinedOutput()
	t.Cleanup(func() { exec.Command(script, "stop", cluster).Run() })
	if err != nil {
		t.Fatalf("starting Slurm: %v\n%s", err, out)
	}
	env := append(os.Environ(), "SLURM_CONF="+filepath.Join(cluster, "slurm.conf"))
	cmd := exec.Command("sbatch", "--wait", filepath.Join(job, "sweep.sbatch"))
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		logs, _ := filepath.Glob(filepath.Join(job, "slice-*.log"))
		var text []string
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			text = append(text, l+":\n"+string(b))
		}
		t.Fatalf("sbatch --wait: %v\n%s\n%s", err, out, strings.Join(text, "\n"))
	}
	mergeAndCompare(t, job, merged, local)
}

// TestEmitSlurmErrors: --emit-slurm refuses what the array makes itself
// and a task count the grid cannot fill, exit 2, writing nothing.
func TestEmitSlurmErrors(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "job")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "1/2"}, "the job array makes its own slices; drop --shard and --resume"},
		{[]string{"--resume"}, "drop --shard and --resume"},
		{[]string{"--slurm-tasks", "3"}, "--slurm-tasks 3: want 1..2 (the grid's points)"},
		{[]string{"--slurm-tasks", "-1"}, "--slurm-tasks -1: want 1..2"},
	} {
		args := append([]string{"-vary", "mkc_cache.ways=1,2", "-out", filepath.Join(dir, "out"), "--emit-slurm", job}, tc.args...)
		code, _, stderr := runSweep(args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(job); err == nil {
			t.Fatalf("%v: the refused job wrote %s", tc.args, job)
		}
	}
}
