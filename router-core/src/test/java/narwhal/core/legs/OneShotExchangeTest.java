package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TransportFailure;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.ManualScheduler;
import narwhal.time.Scheduler;
import org.junit.jupiter.api.Test;

class OneShotExchangeTest {

  private static final URI ENGINE = URI.create("http://10.0.0.1:8100");
  private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final ManualScheduler loop = new ManualScheduler();
  private final ScriptedTransport transport = new ScriptedTransport();
  private final List<String> outcomes = new ArrayList<>();
  private final OneShotExchange.Outcome recorder = new OneShotExchange.Outcome() {
    @Override
    public void onAnswer(int status, String body) {
      outcomes.add("answer " + status + " " + body);
    }

    @Override
    public void onFailure(TransportFailure failure) {
      outcomes.add("failure " + failure.kind());
    }

    @Override
    public void onTimeout() {
      outcomes.add("timeout");
    }
  };

  private OneShotExchange start() {
    return OneShotExchange.start(transport, ENGINE, EngineHttpRequest.get("/health"), ExchangeOptions.defaults(),
        TIMEOUT_NANOS, loop, recorder);
  }

  @Test
  void anAnswerEndsItOnceAndDisarmsTheTimer() {
    OneShotExchange one = start();
    assertThat(loop.pendingTasks()).isEqualTo(1);

    transport.last().head(503, "application/json");
    assertThat(one.status()).isEqualTo(503);
    transport.last().respond(503, "{\"error\":\"busy\"}");
    loop.advanceMillis(5_000);

    assertThat(outcomes).containsExactly("answer 503 {\"error\":\"busy\"}");
    assertThat(loop.pendingTasks()).isZero();
  }

  @Test
  void noAnswerInTimeCancelsTheExchangeAndLateCallbacksAreIgnored() {
    start();
    loop.advanceMillis(1_999);
    assertThat(outcomes).isEmpty();

    loop.advanceMillis(1);
    assertThat(outcomes).containsExactly("timeout");
    assertThat(transport.last().cancelled()).isTrue();

    assertThat(loop.pendingTasks()).isZero();
  }

  @Test
  void whatTheTransportStillDeliversAfterTheEndIsIgnored() {
    // A transport may deliver what was already on its way after a cancel; the handler itself
    // must hold the line, so the calls go to it directly.
    OneShotExchange one = start();
    loop.advanceMillis(2_000);
    one.onHead(200, "application/json");
    one.onBody("{}");
    one.onEnd();
    one.onFailure(new TransportFailure(TransportFailure.Kind.CONNECTION_CLOSED, "late"));

    assertThat(outcomes).containsExactly("timeout");
  }

  @Test
  void aTransportFailureEndsItAndDisarmsTheTimer() {
    start();
    transport.last().fail(TransportFailure.Kind.CONNECT_FAILED);
    loop.advanceMillis(5_000);

    assertThat(outcomes).containsExactly("failure CONNECT_FAILED");
    assertThat(loop.pendingTasks()).isZero();
  }

  @Test
  void abandoningCancelsEverythingAndNoOutcomeFollows() {
    OneShotExchange one = start();
    one.abandon();
    one.abandon();
    loop.advanceMillis(5_000);

    assertThat(transport.last().cancelled()).isTrue();
    assertThat(loop.pendingTasks()).isZero();
    assertThat(outcomes).isEmpty();
  }

  @Test
  void aRequestTheTransportRefusesLeavesNoTimerBehind() {
    EngineTransport refusing = new EngineTransport() {
      @Override
      public Exchange open(URI engineBase, EngineHttpRequest request, ExchangeOptions options, Scheduler loop,
          ExchangeHandler handler) {
        throw new IllegalArgumentException("unsupported scheme ftp");
      }

      @Override
      public int openConnections() {
        return 0;
      }

      @Override
      public void close() {}
    };

    assertThatThrownBy(() -> OneShotExchange.start(refusing, URI.create("ftp://10.0.0.1"),
        EngineHttpRequest.get("/health"), ExchangeOptions.defaults(), TIMEOUT_NANOS, loop, recorder))
        .isInstanceOf(IllegalArgumentException.class);
    loop.advanceMillis(5_000);
    assertThat(loop.pendingTasks()).isZero();
    assertThat(outcomes).isEmpty();
  }
}
