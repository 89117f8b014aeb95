package narwhal.bench.report;

import java.util.Map;

/**
 * The figures of one arm at one level. Latencies in milliseconds; {@code proxy*} fields are the
 * relaying process's own (the router for narwhal, nginx master + workers for nginx; zero for
 * direct), CPU over the measurement window.
 *
 * @param level concurrency (closed loop) or arrival rate per second (open loop)
 * @param engineStyle how the engines framed their streams: {@code chunked} (keep-alive) or {@code
 *     close} (close-delimited, a new connection per stream)
 * @param heapUsedMaxMb peak heap in use sampled over the window (router only; -1 when unknown)
 * @param otherCpuCores CPU the machine spent on anything the run did not start, per second of
 *     window (other tenants, daemons, the kernel's own threads)
 * @param noisy whether {@code otherCpuCores} was above {@link #NOISY_CORES}
 * @param otherTopProcesses the other processes that used the most, with their cores
 * @param softirqCores software-interrupt time, whoever's, per second of window (diagnostic)
 * @param stealCores time the hypervisor ran someone else on the VM's CPUs, per second of window
 * @param proxyUserCpuSeconds the part of {@code proxyCpuSeconds} spent in user mode (the rest is
 *     the kernel's: system calls, and the wake-ups they pay for)
 * @param jitCpuSeconds the router JVM's JIT compiler threads' share of {@code proxyCpuSeconds}:
 *     compilation still going on in the window, not relay work; NaN for nginx and direct
 */
public record ArmLevel(
    String arm,
    double level,
    String engineStyle,
    double windowSeconds,
    long completed,
    long tokens,
    double requestsPerSecond,
    double tokensPerSecond,
    double ttftP50Ms,
    double ttftP99Ms,
    double itlP50Ms,
    double itlP99Ms,
    double proxyCpuSeconds,
    double proxyCpuPer1kRequests,
    double proxyCpuPer100kTokens,
    double proxyRssMb,
    double proxyPeakRssMb,
    double heapUsedMaxMb,
    double heapCommittedMb,
    double enginesCpuSeconds,
    double generatorCpuSeconds,
    long errors,
    Map<String, Long> errorKinds,
    String firstError,
    double otherCpuCores,
    boolean noisy,
    String otherTopProcesses,
    double softirqCores,
    double stealCores,
    double proxyUserCpuSeconds,
    double jitCpuSeconds) {

  public static final String CHUNKED = "chunked";
  public static final String CLOSE = "close";
  /** Other tenants' CPU above this many cores makes a window noisy. */
  public static final double NOISY_CORES = narwhal.bench.cpu.OtherTenants.NOISY_CORES;

  public boolean hasProxy() {
    return !arm.equals("direct");
  }
}
