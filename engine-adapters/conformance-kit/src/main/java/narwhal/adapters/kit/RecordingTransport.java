package narwhal.adapters.kit;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import narwhal.config.EngineSpec;
import narwhal.time.Scheduler;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.ExchangeOptions;

/**
 * The real transport, with every exchange recorded: what each leg sent, what the engine answered
 * and how the exchange ended. Closing it leaves the shared transport open.
 */
final class RecordingTransport implements EngineTransport {

  private final EngineTransport delegate;
  private final List<RecordedExchange> exchanges = new ArrayList<>();

  RecordingTransport(EngineTransport delegate) {
    this.delegate = delegate;
  }

  @Override
  public Exchange open(URI engineBase, EngineHttpRequest request, ExchangeOptions options, Scheduler loop,
      ExchangeHandler handler) {
    // Recorded before opening: a connection failure may be reported inside open().
    RecordedExchange record = new RecordedExchange(engineBase, request);
    synchronized (this) {
      exchanges.add(record);
    }
    return record.wrap(delegate.open(engineBase, request, options, loop, record.wrap(handler)));
  }

  synchronized List<RecordedExchange> all() {
    return List.copyOf(exchanges);
  }

  /** Exchanges sent to {@code engine}, in order. */
  synchronized List<RecordedExchange> to(EngineSpec engine) {
    return exchanges.stream().filter(e -> e.engine().equals(engine.url())).toList();
  }

  synchronized long running() {
    return exchanges.stream().filter(RecordedExchange::open).count();
  }

  synchronized List<String> contractViolations() {
    List<String> all = new ArrayList<>();
    exchanges.forEach(e -> e.contractViolations().forEach(v -> all.add(e + ": " + v)));
    return all;
  }

  @Override
  public int openConnections() {
    return delegate.openConnections();
  }

  @Override
  public void close() {
    // The delegate is shared by the whole suite.
  }
}
