package narwhal.sim;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One request's part in SGLang's bootstrap rendezvous. The decode leg polls the prefill engine's
 * room until its KV is ready; the prefill leg, its prompt computed, waits (bounded by the engine's
 * KV wait) for a decode engine to attach before it answers. Kept apart from {@link Generation}
 * because only SGLang-style requests have it, and its three waits must all end with the response.
 * Confined to the channel's event loop.
 */
final class RendezvousWait {

  private final ChannelHandlerContext ctx;
  private final SimulatedEngineState engine;
  private final BootstrapFields bootstrap;
  /** Decode leg: the poll of the prefill engine's room, while it runs. */
  private @Nullable BootstrapClient kvPoll;
  /** Prefill leg: waiting for a decode engine to attach to the room, and its bound. */
  private BootstrapRooms.@Nullable Registration consumerWait;
  private @Nullable ScheduledFuture<?> consumerTimer;
  /** Prefill leg: the room's KV has been handed over. */
  private boolean transferred;
  /** The response ended: a wait that completes anyway is ignored. */
  private boolean released;

  RendezvousWait(ChannelHandlerContext ctx, SimulatedEngineState engine, BootstrapFields bootstrap) {
    this.ctx = ctx;
    this.engine = engine;
    this.bootstrap = bootstrap;
  }

  /** Decode leg: pulls the KV from the prefill engine's room, then {@code onReady} or {@code onFailure}. */
  void awaitKv(Runnable onReady, Consumer<String> onFailure) {
    kvPoll = BootstrapClient.poll(ctx.channel().eventLoop(), bootstrap.host(), bootstrap.port(), bootstrap.room(),
        engine.options.kvWaitMillis(), outcome -> {
          kvPoll = null;
          if (released) {
            return;
          }
          if (outcome.state() == BootstrapRooms.State.READY) {
            engine.stats.kvPulled();
            onReady.run();
          } else {
            onFailure.accept("KV transfer for bootstrap room " + bootstrap.room() + " from " + bootstrap.host() + ":"
                + bootstrap.port() + " failed: " + outcome.message());
          }
        });
  }

  /** Prefill leg: hands the KV over once a decode engine attaches, or gives up after the KV wait. */
  void awaitConsumer(Runnable onHandedOver, Consumer<String> onTimeout) {
    long room = bootstrap.room();
    long waitMillis = engine.options.kvWaitMillis();
    consumerTimer = ctx.executor().schedule(() -> {
      consumerTimer = null;
      onTimeout.accept("no decode engine bootstrapped room " + room + " within " + waitMillis + " ms");
    }, waitMillis, TimeUnit.MILLISECONDS);
    consumerWait = engine.rooms.awaitConsumer(room, ctx.executor(), () -> {
      consumerWait = null;
      if (released) {
        return;
      }
      if (consumerTimer != null) {
        consumerTimer.cancel(false);
        consumerTimer = null;
      }
      transferred = true;
      engine.rooms.ready(room);
      onHandedOver.run();
    });
  }

  /** Prefill leg: whether the KV has been handed over. */
  boolean transferred() {
    return transferred;
  }

  /** Stops every wait; a prefill that ends before handing its KV over fails its room. */
  void release(boolean isPrefill, boolean cancelledByClient) {
    released = true;
    if (kvPoll != null) {
      kvPoll.cancel();
      kvPoll = null;
    }
    if (consumerWait != null) {
      consumerWait.cancel();
      consumerWait = null;
    }
    if (consumerTimer != null) {
      consumerTimer.cancel(false);
      consumerTimer = null;
    }
    if (isPrefill && !transferred) {
      engine.rooms.failed(bootstrap.room(),
          cancelledByClient ? "the prefill request was cancelled" : "the prefill request failed");
    }
  }
}
