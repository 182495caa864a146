# One image recipe for the three services: docker build --build-arg MODULE=order-api .
FROM maven:3.9-eclipse-temurin-25 AS build
ARG MODULE
WORKDIR /src
COPY . .
RUN mvn -B -q -pl ${MODULE} -am package -DskipTests

FROM eclipse-temurin:25-jre
ARG MODULE
# curl for the compose healthcheck
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/${MODULE}/target/${MODULE}-*.jar /app/service.jar
ENV JAVA_TOOL_OPTIONS="-Xms512m -Xmx512m -XX:+UseG1GC"
ENTRYPOINT ["java", "-jar", "/app/service.jar"]
