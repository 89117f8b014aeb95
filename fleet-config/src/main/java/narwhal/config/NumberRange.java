package narwhal.config;

/** The ranges numeric keys of the fleet file are checked against. */
enum NumberRange {
  NON_NEGATIVE("a number >= 0"),
  POSITIVE("a number > 0"),
  UNIT_INTERVAL("a number in (0, 1]");

  private final String description;

  NumberRange(String description) {
    this.description = description;
  }

  boolean contains(double value) {
    if (!Double.isFinite(value)) {
      return false;
    }
    switch (this) {
      case NON_NEGATIVE:
        return value >= 0;
      case POSITIVE:
        return value > 0;
      case UNIT_INTERVAL:
        return value > 0 && value <= 1;
      default:
        throw new AssertionError(this);
    }
  }

  /** What the value must be, e.g. {@code "a number > 0"}. */
  String description() {
    return description;
  }
}
