package narwhal.engines.vllm;

/**
 * vLLM's own wire text as /work/shared/reference/vllm-wire.md shows it: NixlConnector's {@code
 * kv_transfer_params}. What any OpenAI-compatible engine sends is {@link narwhal.testing.OpenAiWire}.
 */
final class VllmWire {

  /** What a vLLM NixlConnector producer returns, plus a field a newer vLLM might add. */
  static final String PRODUCER_PARAMS = "{\"do_remote_prefill\":true,\"do_remote_decode\":false,"
      + "\"remote_block_ids\":[4,5,6],\"remote_engine_id\":\"7f3c1b2a-engine-p\","
      + "\"remote_request_id\":\"cmpl-b1-0-1a2b3c4d\",\"remote_host\":\"10.0.0.7\","
      + "\"remote_port\":5600,\"tp_size\":1,\"future_field\":{\"x\":[1,null],\"y\":\"z\"}}";

  private VllmWire() {}

  /** A non-streaming completions response carrying {@code kvParams} (JSON text, may be "null"). */
  static String prefillResponse(String kvParams) {
    return "{\"id\":\"cmpl-b1-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"text\":\" the\",\"logprobs\":null,\"finish_reason\":\"length\","
        + "\"stop_reason\":null,\"prompt_logprobs\":null}],\"service_tier\":null,\"system_fingerprint\":null,"
        + "\"usage\":{\"prompt_tokens\":5,\"total_tokens\":6,\"completion_tokens\":1,"
        + "\"prompt_tokens_details\":null},\"kv_transfer_params\":" + kvParams + "}";
  }
}
