package narwhal.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import narwhal.sim.BootstrapRooms.Outcome;
import narwhal.sim.BootstrapRooms.State;
import org.jspecify.annotations.Nullable;

/**
 * The simulated KV bootstrap server of a prefill engine: {@code GET /bootstrap/rooms/{room}
 * ?wait_ms=N} attaches the caller (a decode engine) to the room and answers {@code {"room": R,
 * "state": "ready"|"failed"|"pending", "message": ...}} as soon as the room's KV is ready or
 * failed, or with {@code pending} after {@code wait_ms} (default 0, at most 10 minutes). A real
 * SGLang bootstrap server speaks ZMQ/RDMA instead; only the rendezvous semantics are simulated.
 * Confined to the connection's event loop.
 */
final class BootstrapEndpoint {

  static final String ROOMS = "/bootstrap/rooms/";
  private static final long MAX_WAIT_MILLIS = 600_000;

  private final ChannelHandlerContext ctx;
  private final Consumer<FullHttpResponse> respond;
  private final long room;
  private BootstrapRooms.@Nullable Registration registration;
  private @Nullable ScheduledFuture<?> timer;
  private boolean answered;

  private BootstrapEndpoint(ChannelHandlerContext ctx, long room, Consumer<FullHttpResponse> respond) {
    this.ctx = ctx;
    this.room = room;
    this.respond = respond;
  }

  /**
   * Starts answering a poll of {@code uri}; {@code respond} gets the one response. Returns null
   * when the request was answered at once (a malformed room or wait), else the poll in progress.
   */
  static @Nullable BootstrapEndpoint start(
      ChannelHandlerContext ctx, SimulatedEngineState engine, String uri, Consumer<FullHttpResponse> respond) {
    QueryStringDecoder query = new QueryStringDecoder(uri);
    String roomText = query.path().substring(ROOMS.length());
    long room;
    long waitMillis;
    try {
      room = Long.parseLong(roomText);
      List<String> wait = query.parameters().get("wait_ms");
      waitMillis = wait == null || wait.isEmpty() ? 0 : Long.parseLong(wait.get(0));
    } catch (NumberFormatException e) {
      room = -1;
      waitMillis = -1;
    }
    if (room < 0 || waitMillis < 0) {
      respond.accept(HttpResponses.json(ctx.alloc(), 400, ErrorBodies.envelope(400,
          "expected /bootstrap/rooms/<room: integer >= 0>?wait_ms=<integer >= 0>, got " + uri, null)));
      return null;
    }
    BootstrapEndpoint poll = new BootstrapEndpoint(ctx, room, respond);
    poll.registration = engine.rooms.attachConsumer(room, ctx.executor(), poll::answer);
    if (!poll.answered) {
      poll.timer = ctx.executor().schedule(
          () -> poll.answer(new Outcome(State.PENDING, "")),
          Math.min(waitMillis, MAX_WAIT_MILLIS), TimeUnit.MILLISECONDS);
    }
    return poll;
  }

  /** The poller went away: detach it from the room. */
  void cancel() {
    answered = true;
    release();
  }

  private void answer(Outcome outcome) {
    if (answered) {
      return;
    }
    answered = true;
    release();
    ObjectNode body = SimJson.object();
    body.put("room", room);
    body.put("state", outcome.state().name().toLowerCase(java.util.Locale.ROOT));
    body.put("message", outcome.message());
    respond.accept(HttpResponses.json(ctx.alloc(), 200, body));
  }

  private void release() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    if (registration != null) {
      registration.cancel();
      registration = null;
    }
  }
}
