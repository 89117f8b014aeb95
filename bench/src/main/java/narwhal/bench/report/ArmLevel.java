package narwhal.bench.report;

import java.util.Map;

/**
 * The figures of one arm at one level. Latencies in milliseconds; {@code proxy*} fields are the
 * relaying process's own (the router for narwhal, nginx master + workers for nginx; zero for
 * direct), CPU over the measurement window.
 *
 * @param level concurrency (closed loop) or arrival rate per second (open loop)
 * @param heapUsedMaxMb peak heap in use sampled over the window (router only; -1 when unknown)
 */
public record ArmLevel(
    String arm,
    double level,
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
    String firstError) {

  public boolean hasProxy() {
    return !arm.equals("direct");
  }
}
