package narwhal.bench.cpu;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import narwhal.bench.proc.MachineCpu;
import narwhal.bench.proc.ProcStat;
import narwhal.bench.proc.ProcessProbe;

/**
 * Measures, over one window, how much CPU the machine spent on anything the harness did not start:
 * other tenants' builds and tests, daemons, the kernel's own threads. Machine busy time comes from
 * the aggregate {@code cpu} line of {@code /proc/stat} (user + nice + system + irq + softirq); from
 * it go the CPU seconds of every process the run started (engines, router, nginx master and
 * workers) and of the harness's JVM itself, including the short commands it ran and waited for
 * ({@code taskset}, {@code jcmd}). To say who the others were, every process's CPU is read at both
 * ends of the window too.
 *
 * <p>Interrupt time needs no special case here, and gets none. This VM's kernel accounts CPU time
 * by tick and without {@code CONFIG_IRQ_TIME_ACCOUNTING} ({@code /proc/config.gz}): a tick that
 * lands in a softirq — the run's loopback packets, processed as the sending process leaves its
 * system call — is counted both in the softirq column of {@code /proc/stat} and in that process's
 * system time, so subtracting the processes' time takes it out again. Checked on this machine,
 * pinned, with 4 s windows: at 1 stream (idle but for the run) softirq was 0.01–0.11 of a core
 * while the others' total stayed at 0.01–0.03, nearly all of it the kernel's {@code kdamond}
 * thread, and the residue (the others' time no process alive through the window accounts for) was
 * 0.00 even in the window with the most softirq; at 16–1024 streams softirq reached 0.25 of a core
 * and the others 0.01–0.09 ({@code kdamond} 0.01–0.04, {@code ksoftirqd} at most 0.005, the residue
 * at most 0.06). So idle windows do not look noisy, and excluding softirq from busy time would
 * only hide other tenants' interrupts. What can land on the others is softirq work the kernel
 * defers to {@code ksoftirqd} under load (named as such in {@link Reading#top()}) or does on an
 * idle CPU (the residue), and {@code kdamond}'s page-access sampling, which grows with the run's
 * memory traffic: together they stay under the threshold here, but use part of it.
 *
 * <p>A window where the others used more than {@link #NOISY_CORES} of a core is noisy: its figures
 * were measured on a machine that was not the run's alone.
 */
public final class OtherTenants {

  /** More than this many cores used by others makes a window noisy. */
  public static final double NOISY_CORES = 0.10;

  private static final int TOP = 3;

  private final ProcessProbe probe;
  private final Supplier<List<Long>> started;
  private final long self;
  private MachineCpu machineAtOpen = new MachineCpu(0, 0, 0, 0, 0, 0, 0, 0);
  private Map<Long, ProcStat> processesAtOpen = Map.of();
  private long openedAt;

  /**
   * @param started the processes the run started (not the harness itself), read at each closing
   *     (nginx's workers are its master's children, found then)
   */
  public OtherTenants(ProcessProbe probe, Supplier<List<Long>> started) {
    this.probe = probe;
    this.started = started;
    this.self = ProcessHandle.current().pid();
  }

  public void open() {
    openedAt = System.nanoTime();
    machineAtOpen = probe.machineCpu();
    processesAtOpen = probe.allStats();
  }

  public Reading close() {
    MachineCpu spent = probe.machineCpu().minus(machineAtOpen);
    Map<Long, ProcStat> now = probe.allStats();
    double window = (System.nanoTime() - openedAt) / 1e9;
    double tick = probe.ticksPerSecond();
    Set<Long> harness = new HashSet<>(started.get());
    harness.add(self);
    double harnessSeconds = 0;
    double softirqThreads = 0;
    List<Tenant> tenants = new ArrayList<>();
    for (Map.Entry<Long, ProcStat> e : now.entrySet()) {
      ProcStat before = processesAtOpen.get(e.getKey());
      ProcStat after = e.getValue();
      if (before == null || !before.comm().equals(after.comm())) {
        continue; // started during the window (or a reused pid): its time is not comparable
      }
      long ticks = after.cpuTicks() - before.cpuTicks();
      if (e.getKey() == self) {
        ticks += after.childTicks() - before.childTicks(); // commands it ran and waited for
      }
      if (ticks <= 0) {
        continue;
      }
      if (harness.contains(e.getKey())) {
        harnessSeconds += ticks / tick;
      } else {
        tenants.add(new Tenant(after.comm(), e.getKey(), ticks / tick));
        if (after.comm().startsWith("ksoftirqd/")) {
          softirqThreads += ticks / tick;
        }
      }
    }
    tenants.sort(Comparator.comparingDouble(Tenant::cpuSeconds).reversed());
    double named = tenants.stream().mapToDouble(Tenant::cpuSeconds).sum();
    return Reading.of(spent, probe.ticksPerSecond(), harnessSeconds, softirqThreads, named,
        List.copyOf(tenants.subList(0, Math.min(TOP, tenants.size()))), window);
  }

  /** A process the run did not start, and the CPU it used in the window. */
  public record Tenant(String name, long pid, double cpuSeconds) {}

  /**
   * One window's figures, in CPU seconds.
   *
   * @param busy the machine's user + nice + system + irq + softirq time
   * @param softirq of which software-interrupt time (all of it, whoever's)
   * @param softirqThreads the {@code ksoftirqd} threads' time (part of the others')
   * @param steal time the hypervisor gave the VM's CPUs to someone else (not in busy)
   * @param harness the run's own processes and the harness JVM
   * @param named the time of the other processes alive at both ends of the window; the rest of
   *     the others' time is processes that came or went meanwhile, and interrupts on idle CPUs
   * @param top the other processes that used the most
   */
  public record Reading(double windowSeconds, double busy, double softirq, double softirqThreads, double steal,
      double harness, double named, List<Tenant> top) {

    static Reading of(MachineCpu spent, long ticksPerSecond, double harness, double softirqThreads, double named,
        List<Tenant> top, double windowSeconds) {
      double t = ticksPerSecond;
      return new Reading(windowSeconds, spent.busyTicks() / t, spent.softirq() / t, softirqThreads,
          spent.steal() / t, harness, named, top);
    }

    /** CPU seconds nobody the harness started accounts for. */
    public double otherSeconds() {
      return busy - harness;
    }

    /** {@link #otherSeconds()} per second of window: cores' worth of other tenants' work. */
    public double otherCores() {
      return perSecond(otherSeconds());
    }

    public double stealCores() {
      return perSecond(steal);
    }

    public double softirqCores() {
      return perSecond(softirq);
    }

    public boolean noisy() {
      return otherCores() > NOISY_CORES;
    }

    /** {@code "java 0.25, kworker/0:1 0.01"}: who the others were, in cores. */
    public String describeTop() {
      List<String> parts = new ArrayList<>();
      for (Tenant t : top) {
        parts.add(t.name() + " " + String.format(java.util.Locale.ROOT, "%.2f", perSecond(t.cpuSeconds())));
      }
      return String.join(", ", parts);
    }

    private double perSecond(double seconds) {
      return windowSeconds > 0 ? seconds / windowSeconds : Double.NaN;
    }
  }
}
