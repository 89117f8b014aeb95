package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.time.Duration;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.PrefillResult;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialectWire;
import org.junit.jupiter.api.Test;

/**
 * A prefill result outlives its leg: the request keeps it for the whole decode, which at thousands
 * of concurrent streams is minutes of heap per stream. It must hold the descriptor and nothing of
 * the finished leg (its request body, its exchange, its cancelled timer). A result whose lazily
 * rendered parameters captured the leg kept all of that alive: about 1.9 KiB per stream, found
 * with a heap histogram at 2,000 streams (bench/results/ceiling-20261203-150702/notes.md).
 */
class PrefillResultRetentionTest {

  private static final LegLimits LIMITS = LegLimits.prefill(Duration.ofSeconds(30), ExchangeOptions.defaults());

  @Test
  void prefillResult_keepsNothingOfItsLegReachable() throws Exception {
    Finished finished = prefillOnce();

    for (int i = 0; i < 20 && finished.sentRequest.get() != null; i++) {
      System.gc();
    }

    assertThat(finished.sentRequest.get()).as("the leg's request, reachable only through its result").isNull();
    assertThat(finished.result.producerIid()).isEqualTo("p1");
    assertThat(finished.result.parameters()).containsEntry("engine_id", "7f3c1b2a-engine-p");
    Reference.reachabilityFence(finished.result);
  }

  /** Runs one prefill on a fixture that is dropped on return, so only the result holds anything. */
  private static Finished prefillOnce() throws Exception {
    LegFixture f = new LegFixture();
    var future = f.client.prefill(LegFixture.P1, LegFixture.COMPLETION, LIMITS, f.loop);
    Call call = f.transport.last();
    call.respond(200, TestDialectWire.prefillResponse(TestDialectWire.PRODUCER_HANDOFF));
    return new Finished(future.get(), new WeakReference<>(call.request));
  }

  private record Finished(PrefillResult result, WeakReference<Object> sentRequest) {}
}
