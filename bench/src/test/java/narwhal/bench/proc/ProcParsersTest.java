package narwhal.bench.proc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcParsersTest {

  // A real line's shape: comm with a space and a parenthesis, then 50 fields.
  private static final String STAT = "4242 (java (x) y) S 4200 4242 4200 0 -1 4194560 51234 0 12 0 "
      + "1234 567 0 0 20 0 37 0 987654 5368709120 65536 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0";

  @Test
  void stat_parsesFieldsAfterTheLastParenthesis() {
    ProcStat s = ProcStat.parse(STAT);
    assertThat(s.pid()).isEqualTo(4242);
    assertThat(s.comm()).isEqualTo("java (x) y");
    assertThat(s.state()).isEqualTo('S');
    assertThat(s.ppid()).isEqualTo(4200);
    assertThat(s.utimeTicks()).isEqualTo(1234);
    assertThat(s.stimeTicks()).isEqualTo(567);
    assertThat(s.cpuTicks()).isEqualTo(1801);
    assertThat(s.threads()).isEqualTo(37);
  }

  @Test
  void stat_garbage_isRejected() {
    assertThatThrownBy(() -> ProcStat.parse("nonsense")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void status_readsRssPeakAndThreads() {
    ProcStatus s = ProcStatus.parse("Name:\tjava\nVmPeak:\t 9999 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n"
        + "Threads:\t31\n");
    assertThat(s.vmRssKb()).isEqualTo(102400);
    assertThat(s.vmHwmKb()).isEqualTo(204800);
    assertThat(s.threads()).isEqualTo(31);
  }

  @Test
  void status_ofAZombie_hasNoMemoryLines() {
    assertThat(ProcStatus.parse("Name:\tx\nState:\tZ (zombie)\n").vmRssKb()).isEqualTo(-1);
  }

  @Test
  void probe_sumsCpuAndFindsChildrenInAFakeProc(@TempDir Path proc) throws Exception {
    write(proc, 10, "10 (nginx) S 1 10 10 0 -1 0 0 0 0 0 100 50 0 0 20 0 1 0 0 0 0", "VmRSS:\t 1000 kB\nVmHWM:\t 2000 kB\n");
    write(proc, 11, "11 (nginx) S 10 10 10 0 -1 0 0 0 0 0 300 100 0 0 20 0 1 0 0 0 0", "VmRSS:\t 3000 kB\nVmHWM:\t 4000 kB\n");
    write(proc, 12, "12 (other) S 1 12 12 0 -1 0 0 0 0 0 999 999 0 0 20 0 1 0 0 0 0", "VmRSS:\t 1 kB\n");
    Files.createDirectories(proc.resolve("self"));
    ProcessProbe probe = new ProcessProbe(proc, 100);
    List<Long> group = probe.withChildren(10);
    assertThat(group).containsExactlyInAnyOrder(10L, 11L);
    assertThat(probe.cpuSeconds(group)).isEqualTo(5.5);
    assertThat(probe.memory(group).vmRssKb()).isEqualTo(4000);
    assertThat(probe.memory(group).vmHwmKb()).isEqualTo(6000);
    assertThat(probe.userSeconds(group)).isEqualTo(4.0);
  }

  @Test
  void probe_sumsTheCpuOfNamedThreads(@TempDir Path proc) throws Exception {
    Path tasks = Files.createDirectories(proc.resolve("20/task"));
    for (String[] t : new String[][] {{"20", "java"}, {"21", "C2 CompilerThre"}, {"22", "C1 CompilerThre"},
        {"23", "multiThreadIoEv"}}) {
      Path dir = Files.createDirectories(tasks.resolve(t[0]));
      Files.writeString(dir.resolve("stat"), t[0] + " (" + t[1] + ") S 1 20 20 0 -1 0 0 0 0 0 " + t[0] + " 10 0 0 20 0 1 0 0 0 0\n");
    }
    ProcessProbe probe = new ProcessProbe(proc, 100);
    assertThat(probe.threadCpuSeconds(20, List.of("C1 CompilerThre", "C2 CompilerThre"))).isEqualTo(0.63);
  }

  @Test
  void probe_readsThisProcess() {
    ProcessProbe probe = ProcessProbe.system();
    long self = ProcessHandle.current().pid();
    assertThat(probe.stat(self).pid()).isEqualTo(self);
    assertThat(probe.status(self).vmRssKb()).isPositive();
    assertThat(probe.openFiles(self)).isPositive();
  }

  private static void write(Path proc, int pid, String stat, String status) throws Exception {
    Path dir = Files.createDirectories(proc.resolve(Integer.toString(pid)));
    Files.writeString(dir.resolve("stat"), stat + "\n");
    Files.writeString(dir.resolve("status"), status);
  }
}
