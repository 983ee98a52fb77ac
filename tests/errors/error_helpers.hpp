// Asserts that a call throws a given tack::Error subclass whose message names
// what was wrong.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#define EXPECT_TACK_ERROR(statement, ErrorType, ...)                                                    \
  do {                                                                                                  \
    try {                                                                                               \
      statement;                                                                                        \
      ADD_FAILURE() << #statement " did not throw " #ErrorType;                                         \
    } catch (const ErrorType& e) {                                                                      \
      std::string message = e.what();                                                                   \
      for (const std::string& part : std::vector<std::string>{__VA_ARGS__})                             \
        EXPECT_NE(message.find(part), std::string::npos) << "missing '" << part << "' in: " << message; \
    }                                                                                                   \
  } while (0)
