package narwhal.adapters.kit;

import java.util.Objects;

/** A producer and a consumer engine started for one check; closing the pair stops both. */
public record EnginePair(EngineUnderTest producer, EngineUnderTest consumer) implements AutoCloseable {

  public EnginePair {
    Objects.requireNonNull(producer, "producer");
    Objects.requireNonNull(consumer, "consumer");
  }

  @Override
  public void close() {
    try {
      producer.close();
    } finally {
      consumer.close();
    }
  }
}
