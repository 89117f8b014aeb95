package narwhal.sim;

import narwhal.sim.gpu.StepLoad;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /metrics}: vLLM's Prometheus gauges and counters in the text exposition format. In
 * gpu timing mode the running and waiting gauges, the KV cache usage and the preemption counter
 * are the step loop's, as vLLM's scheduler reports them; in the simple mode they count responses
 * under way, {@code delay-headers} waits and the prompts' KV blocks.
 */
final class MetricsText {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private MetricsText() {}

  static String render(SimOptions options, SimStats stats, @Nullable StepLoad gpu) {
    String labels = "model_name=\"" + escape(options.model()) + "\",engine=\"0\"";
    double running = gpu != null ? gpu.running() : stats.activeRequests();
    // A request held by delay-headers has not reached the engine's scheduler yet, but waits all the same.
    double waiting = stats.waitingRequests() + (gpu != null ? gpu.waiting() : 0);
    double kvUsage = gpu != null ? gpu.kvUsage()
        : Math.min(1.0, (double) stats.activeKvBlocks() / options.kvCacheBlocks());
    double preemptions = gpu != null ? gpu.preemptions() : 0;
    StringBuilder out = new StringBuilder(2048);
    metric(out, "vllm:num_requests_running", "gauge",
        "Number of requests in model execution batches.", labels, running);
    metric(out, "vllm:num_requests_waiting", "gauge",
        "Number of requests waiting to be processed.", labels, waiting);
    metric(out, "vllm:kv_cache_usage_perc", "gauge",
        "KV-cache usage. 1 means 100 percent usage.", labels, kvUsage);
    metric(out, "vllm:prompt_tokens_total", "counter",
        "Number of prefill tokens processed.", labels, stats.promptTokens());
    metric(out, "vllm:generation_tokens_total", "counter",
        "Number of generation tokens processed.", labels, stats.generationTokens());
    metric(out, "vllm:num_preemptions_total", "counter",
        "Cumulative number of preemption from the engine.", labels, preemptions);
    out.append("# HELP vllm:request_success_total Count of successfully processed requests.\n");
    out.append("# TYPE vllm:request_success_total counter\n");
    sample(out, "vllm:request_success_total", labels + ",finished_reason=\"stop\"",
        stats.finishedStop());
    sample(out, "vllm:request_success_total", labels + ",finished_reason=\"length\"",
        stats.finishedLength());
    sample(out, "vllm:request_success_total", labels + ",finished_reason=\"abort\"",
        stats.finishedAbort());
    return out.toString();
  }

  private static void metric(
      StringBuilder out, String name, String type, String help, String labels, double value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    sample(out, name, labels, value);
  }

  private static void sample(StringBuilder out, String name, String labels, double value) {
    out.append(name).append('{').append(labels).append("} ").append(value).append('\n');
  }

  private static String escape(String labelValue) {
    return labelValue.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
