package narwhal.sim.gpu;

/**
 * A snapshot of one engine's step loop, as vLLM's gauges report it.
 *
 * @param running sequences admitted to the batch (prefilling or decoding): {@code
 *     vllm:num_requests_running}
 * @param waiting sequences waiting for admission, or for their KV to arrive: {@code
 *     vllm:num_requests_waiting}
 * @param kvUsedTokens KV tokens held by running sequences and leases
 * @param kvCapacityTokens the KV cache's size
 * @param leases finished prefills whose KV waits for a decode to pull it
 * @param leasedKvTokens the KV tokens those leases hold (part of {@code kvUsedTokens})
 * @param preemptions running sequences evicted so far to make KV room ({@code
 *     vllm:num_preemptions_total})
 * @param steps steps run so far
 */
public record StepLoad(
    int running, int waiting, long kvUsedTokens, long kvCapacityTokens, int leases, long leasedKvTokens,
    long preemptions, long steps) {

  /** {@code vllm:kv_cache_usage_perc}: the KV cache's used fraction, 0..1. */
  public double kvUsage() {
    return kvCapacityTokens == 0 ? 0 : (double) kvUsedTokens / kvCapacityTokens;
  }
}
