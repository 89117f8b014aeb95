package narwhal.spi;

/** How an engine family moves the prompt's KV cache from the producer to the consumer. */
public enum HandoffStyle {
  /**
   * The producer's prefill response carries the descriptor the decode leg needs, so the legs run
   * one after the other (vLLM's NixlConnector {@code kv_transfer_params} round trip).
   */
  SEQUENTIAL,
  /**
   * The router plans a rendezvous both legs carry and sends them at once; the consumer pulls the
   * KV cache from the producer while both run (SGLang's bootstrap host, port and room). A failure
   * of either leg cancels the other, so no leg outlives its sibling.
   */
  CONCURRENT
}
