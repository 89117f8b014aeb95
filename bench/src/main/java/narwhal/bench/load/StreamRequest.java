package narwhal.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One benchmark request, start to finish, on one event loop: for the direct and nginx arms the
 * prefill leg (non-streaming, one token, asking for a remote decode) and then the streamed decode
 * leg carrying the producer's {@code kv_transfer_params}, as a router would run them; for the
 * narwhal arm one streamed request to the router.
 *
 * <p>Latencies are measured from {@code startNanos} (the scheduled arrival in open-loop runs, so a
 * late generator cannot hide queueing). Every stream is checked token by token; the request ends
 * exactly once, as a success or an error with a kind.
 */
final class StreamRequest {

  /** Told once when the request ends. */
  interface Finish {
    void finished(boolean ok);
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PATH = "/v1/completions";

  private final RunContext run;
  private final LoopRuntime rt;
  private final int prompt;
  private final long startNanos;
  private final Finish onFinish;
  private final TokenCheck check;
  private final SseParser sse;
  private @Nullable ScheduledFuture<?> timeout;
  private LoopClient.@Nullable Call call;
  private boolean finished;
  private long lastTokenNanos;

  StreamRequest(RunContext run, LoopRuntime rt, int prompt, long startNanos, Finish onFinish) {
    this.run = run;
    this.rt = rt;
    this.prompt = prompt;
    this.startNanos = startNanos;
    this.onFinish = onFinish;
    this.check = new TokenCheck(run.workload().expected(prompt), run.workload().outputTokens(), rt.text);
    this.sse = new SseParser(this::onEvent);
  }

  void start() {
    rt.stats.started++;
    long remaining = run.timeoutNanos() - (System.nanoTime() - startNanos);
    timeout = rt.loop().schedule(this::onTimeout, Math.max(1, remaining), TimeUnit.NANOSECONDS);
    int rr = rt.roundRobin++;
    if (run.arm().clientRunsPrefill()) {
      call = rt.client.post(run.targets().prefillTarget(run.arm(), rr), PATH, run.workload().prefillBody(prompt),
          rt.nextRequestId(), new PrefillLeg(rr));
    } else {
      call = rt.client.post(run.targets().streamTarget(run.arm(), rr), PATH,
          run.workload().clientBody(prompt), null, new DecodeLeg());
    }
  }

  private void startDecode(int rr, String kvTransferParams) {
    if (finished) {
      return;
    }
    call = rt.client.post(run.targets().streamTarget(run.arm(), rr), PATH,
        run.workload().decodeBody(prompt, kvTransferParams), rt.nextRequestId(), new DecodeLeg());
  }

  /** Collects the small JSON answer of the prefill and pulls out the KV handoff descriptor. */
  private final class PrefillLeg implements ResponseHandler {
    private final int rr;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream(1024);
    private int status;

    PrefillLeg(int rr) {
      this.rr = rr;
    }

    @Override
    public void onHeaders(int status) {
      this.status = status;
    }

    @Override
    public void onContent(ByteBuf content) {
      if (body.size() < 1 << 20) {
        byte[] bytes = new byte[content.readableBytes()];
        content.getBytes(content.readerIndex(), bytes);
        body.write(bytes, 0, bytes.length);
      }
    }

    @Override
    public void onEnd() {
      if (finished) {
        return;
      }
      String text = body.toString(StandardCharsets.UTF_8);
      if (status != 200) {
        fail("prefill_http_" + status, abbreviate(text));
        return;
      }
      JsonNode kv;
      try {
        kv = JSON.readTree(text).get("kv_transfer_params");
      } catch (IOException e) {
        fail("prefill_bad_json", abbreviate(text));
        return;
      }
      if (kv == null || !kv.isObject()) {
        fail("prefill_no_kv_params", abbreviate(text));
        return;
      }
      startDecode(rr, kv.toString());
    }

    @Override
    public void onFailure(String kind, String detail) {
      fail("prefill_" + kind, detail);
    }
  }

  /** The streamed leg: SSE events checked against the oracle, timed as they arrive. */
  private final class DecodeLeg implements ResponseHandler {
    private int status;
    private @Nullable ByteArrayOutputStream errorBody;

    @Override
    public void onHeaders(int status) {
      this.status = status;
      if (status != 200) {
        errorBody = new ByteArrayOutputStream();
      }
    }

    @Override
    public void onContent(ByteBuf content) {
      if (finished) {
        return;
      }
      ByteArrayOutputStream err = errorBody;
      if (err != null) {
        if (err.size() < 2048) {
          byte[] bytes = new byte[content.readableBytes()];
          content.getBytes(content.readerIndex(), bytes);
          err.write(bytes, 0, bytes.length);
        }
        return;
      }
      sse.feed(content);
    }

    @Override
    public void onEnd() {
      if (finished) {
        return;
      }
      ByteArrayOutputStream err = errorBody;
      if (err != null) {
        fail("http_" + status, abbreviate(err.toString(StandardCharsets.UTF_8)));
      } else if (check.passed()) {
        succeed();
      } else {
        fail(check.done() ? "wrong_tokens" : "no_done", String.valueOf(check.failure()));
      }
    }

    @Override
    public void onFailure(String kind, String detail) {
      fail(kind, detail + " (after " + check.tokens() + " tokens)");
    }
  }

  private void onEvent(byte[] data, int length) {
    if (finished) {
      return;
    }
    TokenCheck.Event event = check.onEvent(data, length);
    if (event == TokenCheck.Event.TOKEN) {
      long now = System.nanoTime();
      boolean inWindow = run.window().contains(now);
      if (check.tokens() == 1) {
        run.streaming().incrementAndGet();
        if (inWindow) {
          rt.stats.recordTtft(now - startNanos);
        }
      } else if (inWindow) {
        rt.stats.recordItl(now - lastTokenNanos);
      }
      if (inWindow) {
        rt.stats.tokens++;
      }
      lastTokenNanos = now;
    } else if (event == TokenCheck.Event.FAILED) {
      String why = String.valueOf(check.failure());
      fail(why.startsWith("error event") ? "error_event" : "wrong_tokens", why);
    }
  }

  private void onTimeout() {
    fail("timeout", "no complete answer within " + run.timeoutNanos() / 1_000_000 + " ms after "
        + check.tokens() + " tokens");
  }

  private void succeed() {
    if (finished) {
      return;
    }
    finished = true;
    cancelTimeout();
    endStreaming();
    if (run.window().contains(System.nanoTime())) {
      rt.stats.completed++;
    }
    onFinish.finished(true);
  }

  private void fail(String kind, String detail) {
    if (finished) {
      return;
    }
    finished = true;
    cancelTimeout();
    endStreaming();
    LoopClient.Call c = call;
    if (c != null) {
      c.abandon(); // a half-read response leaves the connection unusable
    }
    rt.stats.recordError(kind, detail, run.window().contains(System.nanoTime()));
    onFinish.finished(false);
  }

  private void endStreaming() {
    if (check.tokens() > 0) {
      run.streaming().decrementAndGet();
    }
  }

  private void cancelTimeout() {
    ScheduledFuture<?> t = timeout;
    if (t != null) {
      t.cancel(false);
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }
}
