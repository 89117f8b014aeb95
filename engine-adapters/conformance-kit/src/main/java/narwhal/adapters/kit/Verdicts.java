package narwhal.adapters.kit;

import narwhal.testing.Poll;
import narwhal.testing.ClientText;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.config.EngineSpec;
import narwhal.api.RouterError;
import narwhal.api.FailureClass;
import narwhal.spi.Phase;
import narwhal.spi.UnreadableHandoffException;
import narwhal.proto.v1.KvHandoffDescriptor;

/** The judgements the suite's checks share. */
final class Verdicts {

  private Verdicts() {}

  /**
   * One leg on each engine, and the decode leg carries the handoff: for a sequential dialect
   * exactly the descriptor read from the producer's (non-streaming) answer, opaque fields
   * included; for a concurrent one the same rendezvous as the prefill leg, which the dialect
   * accepts.
   */
  static void legsAndHandoff(ConformanceRig b) throws UnreadableHandoffException {
    assertThat(b.legsTo(b.producer)).as("prefill legs").hasSize(1);
    assertThat(b.legsTo(b.consumer)).as("decode legs").hasSize(1);
    RecordedExchange prefill = b.legsTo(b.producer).get(0);
    RecordedExchange decode = b.legsTo(b.consumer).get(0);
    KvHandoffDescriptor carried = b.adapter.handoffCarriedBy(decode.request());
    assertThat(carried).as("the handoff the decode leg carries").isNotNull();
    if (b.concurrent()) {
      assertThat(b.adapter.handoffCarriedBy(prefill.request())).as("the rendezvous the prefill leg carries")
          .isEqualTo(carried);
      assertThat(b.dialect.handoffProblem(carried, b.consumer.connector())).isNull();
    } else {
      assertThat(prefill.events()).as("the prefill answer is not a stream").isEmpty();
      KvHandoffDescriptor produced = b.dialect.readPrefillAnswer(prefill.body(), b.producer.connector()).handoff();
      assertThat(carried).as("decode carries the producer's descriptor, opaque fields verbatim").isEqualTo(produced);
    }
  }

  /** Nothing reached the client before the failure: it gets a plain error response. */
  static void noOutput(ClientOutcome o) {
    assertThat(o.started()).as("output committed; client saw %s", o.log()).isFalse();
    assertThat(o.tokens()).isEmpty();
  }

  /** Sequential legs: a prefill that failed sends no decode request. */
  static void noDecodeUnlessConcurrent(ConformanceRig b) {
    if (!b.concurrent()) {
      assertThat(b.legsTo(b.consumer)).as("decode legs sent after a failed prefill").isEmpty();
    }
  }

  /**
   * The client's error says which leg failed, with the spec's status and a message naming the
   * cause; the breaker heard of a failure of {@code failureClass} blamed on that leg's engine and
   * of nothing blamed on the other one. The message names the engine by iid and gives away
   * nothing internal: no address, port, URL or Java exception.
   */
  static void failed(ConformanceRig b, ClientOutcome o, Phase phase, int status, FailureClass failureClass, String message) {
    RouterError e = o.requireError();
    assertThat(o.completed()).as("completed").isFalse();
    assertThat(e.status()).as("client status of %s", e).isEqualTo(status);
    assertThat(e.type()).as("error type names the failed leg: %s", e).isEqualTo(phase.wireName());
    assertThat(e.message()).as("error message").contains(message);
    EngineSpec blamed = phase == Phase.PREFILL ? b.producer : b.consumer;
    revealsNothingInternal(e.message(), blamed.iid());
    EngineSpec innocent = phase == Phase.PREFILL ? b.consumer : b.producer;
    // The breaker hears of the failure in the same loop task that answers the client, possibly after it.
    Poll.until(b.timeouts.settle(),
        () -> b.failures().stream().anyMatch(f -> f.failureClass() == failureClass && f.engineIid().equals(blamed.iid())),
        () -> "a " + failureClass.wireName() + " failure blamed on " + blamed.iid() + "; reported: " + b.failures());
    assertThat(b.failures()).as("failures blamed on the engine that behaved")
        .noneMatch(f -> f.engineIid().equals(innocent.iid()));
  }

  /**
   * A client-facing error message names {@code iid} and nothing internal: no loopback address, no
   * {@code :port}, no URL, no exception or Java class name (the "never leak" rule).
   */
  static void revealsNothingInternal(String message, String iid) {
    assertThat(ClientText.leaks(message, iid)).as("client error message: %s", message).isEmpty();
  }
}
