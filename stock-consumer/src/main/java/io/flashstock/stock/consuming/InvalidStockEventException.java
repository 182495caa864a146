package io.flashstock.stock.consuming;

/** A record that deserialized but can never be applied; it goes to the dead-letter topic. */
public class InvalidStockEventException extends RuntimeException {

    public InvalidStockEventException(String message) {
        super(message);
    }
}
