package narwhal.bench.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import narwhal.bench.proc.MachineCpu;
import narwhal.bench.proc.ProcessProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OtherTenantsTest {

  private static final long SELF = ProcessHandle.current().pid();

  @Test
  void otherTenants_areMachineBusyTimeMinusEverythingTheRunStarted_namedByProcess(@TempDir Path proc)
      throws Exception {
    // user nice system idle iowait irq softirq steal
    procStat(proc, "cpu  10000 5 2000 50000 10 3 400 0 0 0");
    pid(proc, 100, "java", 1000, 200, 0);
    pid(proc, 101, "nginx", 10, 10, 0);
    pid(proc, SELF, "java", 500, 100, 40);
    pid(proc, 7, "ksoftirqd/0", 0, 30, 0);
    pid(proc, 300, "javac", 50, 5, 0);
    pid(proc, 301, "sshd", 1, 1, 0);
    OtherTenants meter = new OtherTenants(new ProcessProbe(proc, 100), () -> List.of(100L, 101L));

    meter.open();
    // In the window: 3.0 s user, 0.5 s system, 0.02 s irq, 0.2 s softirq: 3.72 s busy; 0.07 s steal.
    // The run: the engine 1.5 s, nginx 0.1 s, the harness 0.4 s itself plus 0.2 s of a jcmd it
    // waited for. Others: javac 1.1 s, ksoftirqd 0.05 s, a process that came and went 0.37 s.
    procStat(proc, "cpu  10300 5 2050 50100 10 5 420 7 0 0");
    pid(proc, 100, "java", 1120, 230, 0);
    pid(proc, 101, "nginx", 15, 15, 0);
    pid(proc, SELF, "java", 530, 110, 60);
    pid(proc, 7, "ksoftirqd/0", 0, 35, 0);
    pid(proc, 300, "javac", 150, 15, 0);
    pid(proc, 302, "cc1", 900, 0, 0);
    OtherTenants.Reading r = meter.close();

    assertThat(r.busy()).isCloseTo(3.72, within(1e-9));
    assertThat(r.harness()).isCloseTo(1.5 + 0.1 + 0.4 + 0.2, within(1e-9));
    assertThat(r.otherSeconds()).isCloseTo(1.52, within(1e-9));
    assertThat(r.softirq()).isCloseTo(0.2, within(1e-9));
    assertThat(r.softirqThreads()).isCloseTo(0.05, within(1e-9));
    assertThat(r.steal()).isCloseTo(0.07, within(1e-9));
    assertThat(r.named()).as("javac + ksoftirqd; cc1 started in the window, sshd used nothing")
        .isCloseTo(1.15, within(1e-9));
    assertThat(r.top()).extracting(OtherTenants.Tenant::name).containsExactly("javac", "ksoftirqd/0");
  }

  @Test
  void aProcessThatEndedMidWindow_doesNotBreakTheReading(@TempDir Path proc) throws Exception {
    procStat(proc, "cpu  100 0 100 1000 0 0 0 0");
    pid(proc, 100, "java", 10, 10, 0);
    pid(proc, SELF, "java", 1, 1, 0);
    OtherTenants meter = new OtherTenants(new ProcessProbe(proc, 100), () -> List.of(100L));
    meter.open();
    Files.delete(proc.resolve("100/stat"));
    procStat(proc, "cpu  100 0 100 1000 0 0 0 0");
    OtherTenants.Reading r = meter.close();
    assertThat(r.busy()).isZero();
    assertThat(r.top()).isEmpty();
  }

  @Test
  void reading_isCoresPerWindowSecond_noisyAboveATenth() {
    // busy: 3.0 s user + 1.0 s system + 0.5 s softirq = 4.5 s; steal 0.2 s, outside busy
    MachineCpu spent = new MachineCpu(300, 0, 100, 1500, 0, 0, 50, 20);
    List<OtherTenants.Tenant> top = List.of(new OtherTenants.Tenant("java", 42, 0.25),
        new OtherTenants.Tenant("kworker/0:1", 11, 0.01));
    OtherTenants.Reading quiet = OtherTenants.Reading.of(spent, 100, 4.4, 0, 0, List.of(), 10);
    assertThat(quiet.otherCores()).isCloseTo(0.01, within(1e-9));
    assertThat(quiet.softirqCores()).isCloseTo(0.05, within(1e-9));
    assertThat(quiet.stealCores()).isCloseTo(0.02, within(1e-9));
    assertThat(quiet.noisy()).isFalse();
    assertThat(quiet.describeTop()).isEmpty();
    OtherTenants.Reading edge = OtherTenants.Reading.of(spent, 100, 3.5, 0, 0, List.of(), 10);
    assertThat(edge.otherCores()).isCloseTo(0.10, within(1e-9));
    assertThat(edge.noisy()).as("0.10 is not above 0.10").isFalse();
    OtherTenants.Reading busy = OtherTenants.Reading.of(spent, 100, 1.5, 0, 0.26, top, 10);
    assertThat(busy.otherCores()).isCloseTo(0.30, within(1e-9));
    assertThat(busy.noisy()).isTrue();
    assertThat(busy.describeTop()).isEqualTo("java 0.03, kworker/0:1 0.00");
  }

  private static void procStat(Path proc, String cpuLine) throws Exception {
    Files.writeString(proc.resolve("stat"), cpuLine + "\ncpu0 1 2 3 4 5 6 7 8\nintr 1 2 3\nctxt 99\n");
  }

  private static void pid(Path proc, long pid, String comm, long utime, long stime, long childTicks)
      throws Exception {
    Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
    Files.writeString(dir.resolve("stat"), pid + " (" + comm + ") S 1 " + pid + " " + pid + " 0 -1 0 0 0 0 0 "
        + utime + " " + stime + " " + childTicks + " 0 20 0 1 0 0 0 0\n");
  }
}
