// The one error type of the store layer: a database that cannot be opened, is not clustersim's, is damaged, or a
// statement that fails. Messages name the file where one is known.
#pragma once

#include <stdexcept>

namespace cs {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cs
