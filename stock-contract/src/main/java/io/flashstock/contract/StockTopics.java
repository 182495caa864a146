package io.flashstock.contract;

/** Topic and header names shared by the relay (producer) and the stock consumer. */
public final class StockTopics {

    /** Default name of the topic that carries {@link StockEvent}s, keyed by item code. */
    public static final String EVENTS = "stock-events";

    /** Suffix spring-kafka's DeadLetterPublishingRecoverer appends by default. */
    public static final String DEAD_LETTER_SUFFIX = "-dlt";

    /** Header carrying the event id as UTF-8 text, so tools can trace a record without parsing it. */
    public static final String EVENT_ID_HEADER = "event-id";

    /** Header carrying {@link StockEvent#type()}. */
    public static final String EVENT_TYPE_HEADER = "event-type";

    private StockTopics() {
    }

    public static String deadLetterTopic(String topic) {
        return topic + DEAD_LETTER_SUFFIX;
    }
}
