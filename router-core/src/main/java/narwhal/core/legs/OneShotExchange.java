package narwhal.core.legs;

import java.net.URI;
import java.util.concurrent.TimeUnit;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TransportFailure;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import org.jspecify.annotations.Nullable;

/**
 * One request to an engine whose answer is read whole (a prefill, a tokenize, a health or facts
 * check), bounded by a timer on its loop. Exactly one of the {@link Outcome}'s methods runs, once,
 * unless {@link #abandon() abandoned} first; the timer is cancelled on every path and a timed-out
 * or abandoned exchange is cancelled on the wire. Confined to its loop.
 *
 * <p>Why one class: the prefill leg, the prompt count and the engine checks each need the same
 * small state machine (a timer, the status and body captured, late callbacks ignored), and a
 * release missed on one path of one copy is the kind of bug that shows up only under load.
 */
public final class OneShotExchange implements ExchangeHandler {

  /** How the exchange ended; called on the loop. */
  public interface Outcome {
    /** The engine answered, with any status; {@code body} is empty for an event stream. */
    void onAnswer(int status, String body);

    /** The request got no whole answer: refused, reset, malformed or too large. */
    void onFailure(TransportFailure failure);

    /** No answer within the time bound; the exchange is already cancelled. */
    void onTimeout();
  }

  private final Outcome outcome;
  private @Nullable Exchange exchange;
  private Timer timer = Timer.NONE;
  private int status;
  private String body = "";
  private boolean done;

  private OneShotExchange(Outcome outcome) {
    this.outcome = outcome;
  }

  /**
   * Sends {@code request} to {@code base} now; call on {@code loop}.
   *
   * @throws IllegalArgumentException when the transport refuses the request outright (e.g. a URL
   *     scheme it cannot speak); nothing is left running and no outcome follows
   */
  public static OneShotExchange start(EngineTransport transport, URI base, EngineHttpRequest request,
      ExchangeOptions options, long timeoutNanos, Scheduler loop, Outcome outcome) {
    OneShotExchange one = new OneShotExchange(outcome);
    one.timer = loop.schedule(one::onTimer, timeoutNanos, TimeUnit.NANOSECONDS);
    try {
      one.exchange = transport.open(base, request, options, loop, one);
    } catch (RuntimeException e) {
      one.finish();
      throw e;
    }
    return one;
  }

  /** The status of the answer's head so far; 0 before it arrived. */
  public int status() {
    return status;
  }

  /** Stops waiting: the exchange is cancelled and no outcome runs. Idempotent. */
  public void abandon() {
    if (!done) {
      finish();
      cancelExchange();
    }
  }

  @Override
  public void onHead(int status, String contentType) {
    this.status = status;
  }

  @Override
  public void onEvent(String data) {
    // A one-shot answer is one body; an event stream is judged by its status and an empty body.
  }

  @Override
  public void onBody(String body) {
    this.body = body;
  }

  @Override
  public void onEnd() {
    if (!done) {
      finish();
      outcome.onAnswer(status, body);
    }
  }

  @Override
  public void onFailure(TransportFailure failure) {
    if (!done) {
      finish();
      outcome.onFailure(failure);
    }
  }

  private void onTimer() {
    if (!done) {
      finish();
      cancelExchange();
      outcome.onTimeout();
    }
  }

  private void cancelExchange() {
    if (exchange != null) {
      exchange.cancel();
    }
  }

  private void finish() {
    done = true;
    timer.cancel();
  }
}
