package narwhal.sim;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/** The faults the simulator can inject, with the value and options each one takes. */
enum FaultKind {
  /** Close the connection on receipt of the request, without any response. */
  REFUSE("refuse", ValueKind.NONE),
  /** Abort the TCP connection (RST) after N tokens. */
  RESET_AFTER("reset-after", ValueKind.COUNT),
  /** Wait MS before sending the response headers. */
  DELAY_HEADERS("delay-headers", ValueKind.MILLIS),
  /** Answer with an HTTP error in vLLM's envelope. */
  STATUS("status", ValueKind.HTTP_STATUS, "message"),
  /**
   * Send the headers, then no token for MS before the first one, optionally with SSE keep-alive
   * comments every {@code comments} ms.
   */
  SILENCE_FIRST("silence-first", ValueKind.MILLIS_OR_FOREVER, "comments"),
  /**
   * After N tokens go silent for {@code ms} (default forever), optionally with metadata chunks
   * every {@code metadata-every} ms and/or SSE keep-alive comments every {@code comments} ms.
   */
  SILENCE_AFTER("silence-after", ValueKind.COUNT, "ms", "metadata-every", "comments"),
  /** End the chunked response cleanly after N tokens, without {@code [DONE]}. */
  EOF_AFTER("eof-after", ValueKind.COUNT),
  /** Send {@code data: [DONE]} before any token. */
  DONE_FIRST("done-first", ValueKind.NONE),
  /** After N tokens send an error event, then {@code [DONE]}. */
  ERROR_AFTER("error-after", ValueKind.COUNT, "code", "message"),
  /** Prefill descriptor without {@code remote_engine_id}. */
  KV_MISSING_ENGINE_ID("kv-missing-engine-id", ValueKind.NONE),
  /** Prefill descriptor whose {@code remote_block_ids} are not block ids. */
  KV_BAD_BLOCK_IDS("kv-bad-block-ids", ValueKind.NONE),
  /** Prefill descriptor in another connector's shape. */
  KV_WRONG_CONNECTOR("kv-wrong-connector", ValueKind.NONE),
  /**
   * Not a fault: adds an opaque field {@code NAME=VALUE} to the descriptor a prefill returns (as a
   * newer vLLM or another runtime might), so a test can check the router passes it on verbatim.
   */
  KV_EXTRA_FIELD("kv-extra-field", ValueKind.FIELD),
  /** Prefill response with {@code kv_transfer_params: null}. */
  KV_NONE("kv-none", ValueKind.NONE),
  /** Finish with {@code finish_reason: "stop"} after N tokens. */
  EOS_AFTER("eos-after", ValueKind.COUNT),
  /** Health 503 and every /v1 request 503. */
  DEAD("dead", ValueKind.NONE);

  /** What the value after {@code name=} must be. */
  enum ValueKind {
    NONE,
    COUNT,
    MILLIS,
    MILLIS_OR_FOREVER,
    HTTP_STATUS,
    /** {@code NAME=VALUE}, VALUE JSON when it parses, else text. */
    FIELD
  }

  private final String wireName;
  private final ValueKind valueKind;
  private final Set<String> options;

  FaultKind(String wireName, ValueKind valueKind, String... options) {
    this.wireName = wireName;
    this.valueKind = valueKind;
    this.options = Set.of(options);
  }

  String wireName() {
    return wireName;
  }

  ValueKind valueKind() {
    return valueKind;
  }

  /** Option keys this fault accepts besides the modifiers {@code count} and {@code phase}. */
  Set<String> options() {
    return options;
  }

  static FaultKind byName(String name) {
    for (FaultKind kind : values()) {
      if (kind.wireName.equals(name)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown fault '" + name + "'; known: fail-first, " + knownNames());
  }

  static String knownNames() {
    return Arrays.stream(values()).map(FaultKind::wireName).collect(Collectors.joining(", "));
  }
}
