package narwhal.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import narwhal.bench.cpu.OtherTenants;
import narwhal.bench.load.Arm;
import narwhal.bench.load.Phases;
import narwhal.bench.load.RunResult;
import narwhal.bench.proc.HsPerfData;
import narwhal.bench.proc.ProcStatus;
import narwhal.bench.proc.ProcessProbe;
import narwhal.bench.report.ArmLevel;
import narwhal.bench.report.Rounds;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Process accounting around one run's measurement window: CPU seconds of the relaying process
 * (router, or nginx master + workers), the engines and the generator; the relay's resident memory
 * and, for the router, its heap sampled from hsperfdata while the window is open; and the CPU
 * other tenants of the machine used meanwhile ({@link OtherTenants}).
 */
final class Accounting implements Phases {

  private static final long SELF = ProcessHandle.current().pid();

  private final ProcessProbe probe;
  private final List<Long> proxyPids;
  private final List<Long> enginePids;
  private final Optional<Path> heapCounters;
  private final OtherTenants others;
  private OtherTenants.@Nullable Reading noise;
  /** The JIT compiler threads of a HotSpot JVM, by the names it gives them. */
  private static final List<String> COMPILER_THREADS = List.of("C1 CompilerThre", "C2 CompilerThre");

  private final long jvmPid;
  private double proxyCpu0;
  private double proxyCpu1;
  private double proxyUser0;
  private double proxyUser1;
  private double jit0;
  private double jit1;
  private double enginesCpu0;
  private double enginesCpu1;
  private double selfCpu0;
  private double selfCpu1;
  private long heapUsedMax = -1;
  private long heapCommitted = -1;
  private long rssMaxKb;
  private long hwmKb;

  /**
   * @param proxyPids the relay's processes (empty for the direct arm)
   * @param jvmPid the router's pid when the relay is the router, else -1
   */
  Accounting(ProcessProbe probe, List<Long> proxyPids, List<Long> enginePids, long jvmPid, OtherTenants others) {
    this.probe = probe;
    this.others = others;
    this.proxyPids = proxyPids;
    this.enginePids = enginePids;
    this.jvmPid = jvmPid;
    this.heapCounters = jvmPid > 0 ? HsPerfData.find(Path.of("/tmp"), jvmPid) : Optional.empty();
  }

  @Override
  public void windowOpened() {
    others.open();
    proxyCpu0 = probe.cpuSeconds(proxyPids);
    proxyUser0 = probe.userSeconds(proxyPids);
    jit0 = jvmPid > 0 ? probe.threadCpuSeconds(jvmPid, COMPILER_THREADS) : 0;
    enginesCpu0 = probe.cpuSeconds(enginePids);
    selfCpu0 = probe.cpuSeconds(List.of(SELF));
    sample();
  }

  @Override
  public void sample() {
    if (!proxyPids.isEmpty()) {
      ProcStatus m = probe.memory(proxyPids);
      rssMaxKb = Math.max(rssMaxKb, m.vmRssKb());
      hwmKb = Math.max(hwmKb, m.vmHwmKb());
    }
    heapCounters.ifPresent(file -> {
      try {
        HsPerfData d = HsPerfData.read(file);
        heapUsedMax = Math.max(heapUsedMax, d.heapUsedBytes());
        heapCommitted = Math.max(heapCommitted, d.heapCommittedBytes());
      } catch (IOException | RuntimeException e) {
        // The counters file is rewritten in place; a torn read skips one sample.
      }
    });
  }

  @Override
  public void windowClosed() {
    sample();
    proxyCpu1 = probe.cpuSeconds(proxyPids);
    proxyUser1 = probe.userSeconds(proxyPids);
    jit1 = jvmPid > 0 ? probe.threadCpuSeconds(jvmPid, COMPILER_THREADS) : 0;
    enginesCpu1 = probe.cpuSeconds(enginePids);
    selfCpu1 = probe.cpuSeconds(List.of(SELF));
    noise = others.close();
  }

  /** Other tenants' CPU over the window; null before it closed. */
  OtherTenants.@Nullable Reading noise() {
    return noise;
  }

  ArmLevel result(Arm arm, double level, String engineStyle, RunResult run) {
    Histogram ttft = run.stats().ttftUs();
    Histogram itl = run.stats().itlUs();
    double proxyCpu = proxyCpu1 - proxyCpu0;
    long completed = run.stats().completed();
    long tokens = run.stats().tokens();
    OtherTenants.Reading n = noise;
    return new ArmLevel(arm.label(), level, engineStyle, run.windowSeconds(), completed, tokens,
        run.requestsPerSecond(), run.tokensPerSecond(),
        Rounds.percentileMs(ttft, 50), Rounds.percentileMs(ttft, 99), Rounds.percentileMs(itl, 50),
        Rounds.percentileMs(itl, 99),
        proxyCpu,
        completed == 0 ? Double.NaN : proxyCpu * 1000.0 / completed,
        tokens == 0 ? Double.NaN : proxyCpu * 100_000.0 / tokens,
        rssMaxKb / 1024.0, hwmKb / 1024.0,
        heapUsedMax < 0 ? -1 : heapUsedMax / 1048576.0,
        heapCommitted < 0 ? -1 : heapCommitted / 1048576.0,
        enginesCpu1 - enginesCpu0, selfCpu1 - selfCpu0,
        run.stats().errors(), run.stats().errorKinds(), run.stats().firstError(),
        n == null ? Double.NaN : n.otherCores(), n != null && n.noisy(), n == null ? "" : n.describeTop(),
        n == null ? Double.NaN : n.softirqCores(), n == null ? Double.NaN : n.stealCores(),
        proxyUser1 - proxyUser0, jvmPid > 0 ? jit1 - jit0 : Double.NaN);
  }
}
