package narwhal.adapters.kit;

import java.time.Duration;
import java.util.Objects;
import narwhal.spi.Phase;

/**
 * One fault the kit asks an engine to inject, in engine-neutral terms. An {@link AdapterUnderTest}
 * maps each to its engine's or simulator's own controls ({@link EngineSimFaults} does it for
 * narwhal's engine-sim).
 *
 * <p>{@link #phase()} names the engine that misbehaves: {@link Phase#PREFILL} the producer, {@link
 * Phase#DECODE} the consumer. Stream faults are always on the consumer. Token counts are checked
 * before each token: "after 0" acts before the first.
 *
 * @param kind what goes wrong
 * @param phase which engine: the producer (prefill) or the consumer (decode)
 * @param tokens for the {@code *_AFTER} kinds: how many tokens stream first
 * @param code an HTTP status ({@link Kind#STATUS}) or an error object's code ({@link
 *     Kind#ERROR_EVENT_AFTER})
 * @param duration the delay ({@link Kind#DELAY_HEADERS}) or the silence ({@link
 *     Kind#METADATA_WHILE_SILENT}); zero otherwise
 * @param every how often metadata chunks come during {@link Kind#METADATA_WHILE_SILENT}
 * @param message the engine's error message ({@link Kind#STATUS}, {@link Kind#ERROR_EVENT_AFTER}):
 *     the kit checks that the adapter's error reading carries it to the client
 */
public record Fault(Kind kind, Phase phase, int tokens, int code, Duration duration, Duration every, String message) {

  /** The engine-neutral fault kinds. */
  public enum Kind {
    /** Answer the leg with HTTP {@code code} and an error body saying {@code message}. */
    STATUS,
    /** Hold the response head back for {@code duration} (the request is accepted and waits). */
    DELAY_HEADERS,
    /** Close the connection as soon as the request arrives, answering nothing. */
    CLOSE_ON_RECEIPT,
    /** The engine is dead: its health request fails and every inference request is refused. */
    DEAD,
    /** Send the stream's head, then nothing at all. */
    SILENCE_BEFORE_FIRST_TOKEN,
    /** Stream {@code tokens} tokens, then nothing at all. */
    SILENCE_AFTER,
    /**
     * Stream {@code tokens} tokens, then for {@code duration} send only metadata chunks (no
     * generated output) every {@code every}, then finish normally.
     */
    METADATA_WHILE_SILENT,
    /** Stream {@code tokens} tokens, then end the response cleanly without {@code [DONE]}. */
    EOF_AFTER,
    /** Stream {@code tokens} tokens, then reset the TCP connection. */
    RESET_AFTER,
    /** Send {@code [DONE]} before any generated token. */
    DONE_BEFORE_ANY_TOKEN,
    /** Stream {@code tokens} tokens, then an error object with {@code code} and {@code message}. */
    ERROR_EVENT_AFTER,
    /** Sequential handoffs: the prefill answer carries no handoff descriptor at all. */
    DESCRIPTOR_MISSING,
    /** Sequential handoffs: the descriptor names no producer engine identity. */
    DESCRIPTOR_NO_ENGINE_IDENTITY,
    /** Sequential handoffs: the descriptor's KV block ids are malformed. */
    DESCRIPTOR_MALFORMED_BLOCK_IDS,
    /** Sequential handoffs: the descriptor comes from another KV connector than the consumer's. */
    DESCRIPTOR_OTHER_CONNECTOR
  }

  public Fault {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(every, "every");
    Objects.requireNonNull(message, "message");
  }

  private static Fault of(Kind kind, Phase phase) {
    return new Fault(kind, phase, 0, 0, Duration.ZERO, Duration.ZERO, "");
  }

  /** The producer or consumer answers HTTP {@code code} with a recognisable message. */
  public static Fault status(Phase phase, int code) {
    return new Fault(Kind.STATUS, phase, 0, code, Duration.ZERO, Duration.ZERO,
        "kit-injected " + phase.wireName() + " failure " + code);
  }

  public static Fault delayHeaders(Phase phase, Duration delay) {
    return new Fault(Kind.DELAY_HEADERS, phase, 0, 0, delay, Duration.ZERO, "");
  }

  public static Fault closeOnReceipt(Phase phase) {
    return of(Kind.CLOSE_ON_RECEIPT, phase);
  }

  public static Fault dead(Phase phase) {
    return of(Kind.DEAD, phase);
  }

  public static Fault silenceBeforeFirstToken() {
    return of(Kind.SILENCE_BEFORE_FIRST_TOKEN, Phase.DECODE);
  }

  public static Fault silenceAfter(int tokens) {
    return new Fault(Kind.SILENCE_AFTER, Phase.DECODE, tokens, 0, Duration.ZERO, Duration.ZERO, "");
  }

  public static Fault metadataWhileSilent(int tokens, Duration silence, Duration every) {
    return new Fault(Kind.METADATA_WHILE_SILENT, Phase.DECODE, tokens, 0, silence, every, "");
  }

  public static Fault eofAfter(int tokens) {
    return new Fault(Kind.EOF_AFTER, Phase.DECODE, tokens, 0, Duration.ZERO, Duration.ZERO, "");
  }

  public static Fault resetAfter(int tokens) {
    return new Fault(Kind.RESET_AFTER, Phase.DECODE, tokens, 0, Duration.ZERO, Duration.ZERO, "");
  }

  public static Fault doneBeforeAnyToken() {
    return of(Kind.DONE_BEFORE_ANY_TOKEN, Phase.DECODE);
  }

  public static Fault errorEventAfter(int tokens, int code) {
    return new Fault(Kind.ERROR_EVENT_AFTER, Phase.DECODE, tokens, code, Duration.ZERO, Duration.ZERO,
        "kit-injected stream error " + code);
  }

  /** One of the {@code DESCRIPTOR_*} kinds, on the producer. */
  public static Fault descriptor(Kind kind) {
    if (!kind.name().startsWith("DESCRIPTOR_")) {
      throw new IllegalArgumentException(kind + " is not a descriptor fault");
    }
    return of(kind, Phase.PREFILL);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(kind.name().toLowerCase(java.util.Locale.ROOT)).append('@')
        .append(phase.wireName());
    if (tokens > 0) {
      s.append(" after ").append(tokens);
    }
    if (code > 0) {
      s.append(" code ").append(code);
    }
    if (!duration.isZero()) {
      s.append(' ').append(duration.toMillis()).append(" ms");
    }
    return s.toString();
  }
}
