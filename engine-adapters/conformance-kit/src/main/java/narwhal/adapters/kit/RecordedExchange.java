package narwhal.adapters.kit;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.TransportFailure;
import org.jspecify.annotations.Nullable;

/**
 * One exchange the router opened, as the engine answered it, and how it ended. Written on the
 * router's loop, read from the test thread: every access is synchronized.
 */
public final class RecordedExchange {

  private final URI engine;
  private final EngineHttpRequest request;
  private int status;
  private String body = "";
  private final List<String> events = new ArrayList<>();
  private @Nullable String ending;
  private final List<String> contractViolations = new ArrayList<>();

  RecordedExchange(URI engine, EngineHttpRequest request) {
    this.engine = engine;
    this.request = request;
  }

  public URI engine() {
    return engine;
  }

  public EngineHttpRequest request() {
    return request;
  }

  public synchronized int status() {
    return status;
  }

  /** The body of a non-streaming answer. */
  public synchronized String body() {
    return body;
  }

  public synchronized List<String> events() {
    return List.copyOf(events);
  }

  /** "end", "failure:KIND", "cancelled", or null while the exchange runs. */
  public synchronized @Nullable String ending() {
    return ending;
  }

  public synchronized boolean cancelled() {
    return "cancelled".equals(ending);
  }

  synchronized boolean open() {
    return ending == null;
  }

  synchronized List<String> contractViolations() {
    return List.copyOf(contractViolations);
  }

  private synchronized boolean callback(String what) {
    if (ending != null) {
      // EngineTransport contract: nothing after onEnd, onFailure or cancel.
      contractViolations.add(what + " after " + ending);
      return false;
    }
    return true;
  }

  private synchronized void end(String how) {
    ending = how;
  }

  ExchangeHandler wrap(ExchangeHandler handler) {
    return new ExchangeHandler() {
      @Override
      public void onHead(int headStatus, String contentType) {
        if (callback("onHead")) {
          synchronized (RecordedExchange.this) {
            status = headStatus;
          }
          handler.onHead(headStatus, contentType);
        }
      }

      @Override
      public void onEvent(String data) {
        if (callback("onEvent")) {
          synchronized (RecordedExchange.this) {
            events.add(data);
          }
          handler.onEvent(data);
        }
      }

      @Override
      public void onChunkWithoutEvent() {
        // Passed on: a decode leg counts such chunks as signs of life for its silence bound.
        if (callback("onChunkWithoutEvent")) {
          handler.onChunkWithoutEvent();
        }
      }

      @Override
      public void onBody(String text) {
        if (callback("onBody")) {
          synchronized (RecordedExchange.this) {
            body = text;
          }
          handler.onBody(text);
        }
      }

      @Override
      public void onEnd() {
        if (callback("onEnd")) {
          end("end");
          handler.onEnd();
        }
      }

      @Override
      public void onFailure(TransportFailure failure) {
        if (callback("onFailure")) {
          end("failure:" + failure.kind());
          handler.onFailure(failure);
        }
      }
    };
  }

  Exchange wrap(Exchange exchange) {
    return new Exchange() {
      @Override
      public void cancel() {
        synchronized (RecordedExchange.this) {
          if (ending == null) {
            ending = "cancelled";
          }
        }
        exchange.cancel();
      }

      @Override
      public void pause() {
        exchange.pause();
      }

      @Override
      public void resume() {
        exchange.resume();
      }
    };
  }

  @Override
  public synchronized String toString() {
    return request.method() + " " + engine + request.path() + " -> " + status + " " + ending;
  }
}
