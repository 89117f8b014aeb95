package narwhal.testing;

/** {@link TestDialect}'s wire text: what its producers answer a prefill with. */
public final class TestDialectWire {

  /**
   * A producer's handoff: the typed members, plus two it does not type ({@code consumer_pulls},
   * and a member a newer engine might add), which must reach the consumer unchanged.
   */
  public static final String PRODUCER_HANDOFF = "{\"consumer_pulls\":true,"
      + "\"block_ids\":[4,5,6],\"engine_id\":\"7f3c1b2a-engine-p\","
      + "\"request_id\":\"cmpl-b1-0-1a2b3c4d\",\"host\":\"10.0.0.7\","
      + "\"port\":5600,\"tp_size\":1,\"future_field\":{\"x\":[1,null],\"y\":\"z\"}}";

  private TestDialectWire() {}

  /** What {@link #prefillResponse} reports as its usage: 5 prompt tokens. */
  private static final String USAGE = "\"usage\":{\"prompt_tokens\":5,\"total_tokens\":6,\"completion_tokens\":1},";

  /** A non-streaming completions response carrying {@code handoff} (JSON text, may be "null"). */
  public static String prefillResponse(String handoff) {
    return prefillResponse(handoff, USAGE);
  }

  private static String prefillResponse(String handoff, String usage) {
    return "{\"id\":\"cmpl-b1-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"text\":\" the\",\"logprobs\":null,\"finish_reason\":\"length\"}],"
        + usage + "\"" + TestDialect.HANDOFF + "\":" + handoff + "}";
  }

  /** A producer's answer whose handoff names {@code engineId}. */
  public static String prefillResponseFrom(String engineId) {
    return prefillResponse(PRODUCER_HANDOFF.replace("7f3c1b2a-engine-p", engineId));
  }

  /** As {@link #prefillResponseFrom}, from an engine that reports no usage. */
  public static String prefillResponseWithoutUsageFrom(String engineId) {
    return prefillResponse(PRODUCER_HANDOFF.replace("7f3c1b2a-engine-p", engineId), "");
  }
}
